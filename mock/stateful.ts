/**
 * The stateful mock: the reference server on an in-memory store with the deterministic demo data and its fixed keys.
 * Patches stick, filters and pagination behave; everything is forgotten at exit. Usage: npm run mock:stateful
 */
process.env.PORT ??= "4011";
process.env.SEED_DEMO_DATA = "true";
delete process.env.DATABASE_URL;
delete process.env.DATA_DIR;
await import("../server/main.js");
