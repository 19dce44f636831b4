/** The error a call ends in; fails the test, saying so, when the call succeeds. */
export async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}
