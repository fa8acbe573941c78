/** Where the local hub listens unless told otherwise (plain HTTP and HTTPS). */
export const DEFAULT_LISTEN = "127.0.0.1:7480";
export const DEFAULT_TLS_LISTEN = "127.0.0.1:7443";
