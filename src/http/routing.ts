/** 404 and 405 for paths and methods the simulator does not serve. */
import type { RequestHandler } from 'express';
import { VaultError } from '../domain/errors.js';

/** For a known path: 405 with the methods it allows. */
export function methodNotAllowed(allow: string): RequestHandler {
  return (req, res) => {
    res.set('Allow', allow);
    throw new VaultError('methodNotAllowed', `${req.method} is not allowed here; use ${allow}`);
  };
}

export const endpointNotFound: RequestHandler = (req) => {
  throw new VaultError('endpointNotFound', `There is no endpoint at ${req.method} ${req.path}`);
};
