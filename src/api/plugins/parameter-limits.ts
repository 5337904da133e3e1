import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { INTEGER_TEXT } from '../block-param.js';
import { MAX_PARAMETER_LENGTH } from '../limits.js';

type Place = 'querystring' | 'params';

/**
 * A query or path value the schema validator would misread, reported as that validator reports
 * the failure: the API answers 422 with the reference's text, the Etherscan-style calls their
 * NOTOK envelope.
 */
export class ParameterError extends Error {
  override name = 'ParameterError';
  readonly validation: Array<{ keyword: string; instancePath: string; params: Record<string, unknown> }>;
  constructor(
    parameter: string,
    keyword: 'maxLength' | 'type' | 'minimum' | 'maximum',
    params: Record<string, unknown>,
    readonly validationContext: Place = 'querystring',
  ) {
    super(`${validationContext === 'params' ? 'path' : 'query'} parameter ${parameter}: ${keyword}`);
    this.validation = [{ keyword, instancePath: `/${parameter}`, params }];
  }
}

const tooLong = (value: unknown): boolean =>
  typeof value === 'string' ? value.length > MAX_PARAMETER_LENGTH : Array.isArray(value) && value.some(tooLong);

interface IntegerBounds {
  minimum: number | undefined;
  maximum: number | undefined;
}

/** A route's integer query or path parameters and their bounds, read once per schema. */
const integersBySchema = new WeakMap<object, ReadonlyMap<string, IntegerBounds>>();

function integerParameters(schema: unknown): ReadonlyMap<string, IntegerBounds> | null {
  if (typeof schema !== 'object' || schema === null) return null;
  let integers = integersBySchema.get(schema);
  if (integers === undefined) {
    const properties = (schema as { properties?: Record<string, { type?: unknown; minimum?: number; maximum?: number }> }).properties ?? {};
    integers = new Map(
      Object.entries(properties)
        .filter(([, p]) => p.type === 'integer')
        .map(([name, p]) => [name, { minimum: p.minimum, maximum: p.maximum }]),
    );
    integersBySchema.set(schema, integers);
  }
  return integers.size === 0 ? null : integers;
}

/**
 * An integer value as the reference casts it (Integer.parse of the whole text: an optional sign
 * and decimal digits), judged before the validator's own coercion, which would take `0x10`,
 * `1e1`, ` 10` or `10.0` for numbers and round digits past 2^53 before comparing them with the
 * bounds. (A repeated parameter is an array: the validator reports it.)
 */
function integerError(name: string, value: unknown, bounds: IntegerBounds, place: Place): ParameterError | null {
  if (typeof value !== 'string') return null;
  if (!INTEGER_TEXT.test(value)) return new ParameterError(name, 'type', { type: 'integer' }, place);
  const n = BigInt(value);
  if (bounds.minimum !== undefined && n < BigInt(bounds.minimum)) return new ParameterError(name, 'minimum', { limit: bounds.minimum, value: n.toString() }, place);
  if (bounds.maximum !== undefined && n > BigInt(bounds.maximum)) return new ParameterError(name, 'maximum', { limit: bounds.maximum, value: n.toString() }, place);
  return null;
}

/** The first integer parameter of `values` (a request's query or path parameters) that its schema's bounds refuse. */
function firstIntegerError(schema: unknown, values: unknown, place: Place): ParameterError | null {
  const integers = integerParameters(schema);
  if (integers === null) return null;
  for (const [name, bounds] of integers) {
    const error = integerError(name, (values as Record<string, unknown>)[name], bounds, place);
    if (error) return error;
  }
  return null;
}

/**
 * Every query value of a scope's routes has a length limit, whatever the route's schema says of
 * it (integers arrive as text of any length, unknown Etherscan parameters are free), and it is
 * checked before anything keeps or compares it: the restricted check, the page cache. Integer
 * parameters, in the query or the path, are decimal text (integerError).
 */
export function parameterLimits(app: FastifyInstance): void {
  // a callback hook: it runs on every keyed request, cached pages included
  app.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const query = request.query as Record<string, unknown>;
    for (const name in query) {
      if (tooLong(query[name])) return done(new ParameterError(name, 'maxLength', { limit: MAX_PARAMETER_LENGTH }));
    }
    const schema = request.routeOptions.schema;
    done(firstIntegerError(schema?.querystring, query, 'querystring') ?? firstIntegerError(schema?.params, request.params, 'params') ?? undefined);
  });
}
