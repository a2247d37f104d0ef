/**
 * A type users see is a plain interface that imports nothing, so the published declarations need no zod
 * (decision 0047); the zod schema that reads it is checked against it here, both ways.
 */
import type * as z from 'zod';

/** True only when A and B are the same type (not merely assignable to each other). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** `schemaFor<T>()(schema)`: the schema as it is, once the compiler has checked that it yields exactly T. */
export const schemaFor =
  <T>() =>
  <S extends z.ZodType>(schema: S & (Same<z.output<S>, T> extends true ? unknown : { yields: T })): S =>
    schema;
