/**
 * Whether a request's handler has started its work: until then nothing of it can have been applied, and the answer
 * timeout may say so; once it has, a write may still commit, and the timeout's answer says that instead.
 */
import type { Response } from "express";

const started = new WeakSet<Response>();

export function markWorkStarted(res: Response): void {
  started.add(res);
}

export function workStarted(res: Response): boolean {
  return started.has(res);
}
