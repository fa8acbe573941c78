/** `T` with every property writable (a settings object being filled in before it is stored). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
