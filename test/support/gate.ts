/**
 * A promise and the function that resolves it: one test step waits on `opened` until another calls `open()` (a
 * transaction held until the test lets it go, a handler until a request is queued). Node 20 has no
 * `Promise.withResolvers`.
 */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
