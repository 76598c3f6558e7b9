/** Stands in for src/handler.ts in unbundled synths while that file does not exist yet. */
async function handler(): Promise<void> {}

export { handler };
