// The throwaway PostgreSQL cluster of the tests and benches lives in tools/ (bench/postgres.ts uses it too).
export * from "../../tools/throwawayPostgres.js";
