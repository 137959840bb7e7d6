/** A client's endpoint methods, made from one call function (see withEndpointMethods). */
import { type EndpointDef, type EndpointName, endpointNames, endpoints } from './endpoints.js';

const CALL = Symbol('call');
type Caller = { [CALL](name: EndpointName, def: EndpointDef, body: unknown): Promise<unknown> };

/**
 * The endpoint methods, shared by every client as getters: a client makes an endpoint's method the
 * first time it is asked for it, and keeps it (so `const { nodeinfo } = client` and a method passed
 * on still work). The bot keeps a client per node, and a closure per endpoint per client was ~15 KiB
 * a node, ~30 MiB held for an account of 2,000 (issue 29); a poll uses a dozen of the endpoints.
 */
const ENDPOINT_METHODS: object = Object.defineProperties(
  {},
  Object.fromEntries(
    endpointNames.map((name): [string, PropertyDescriptor] => {
      const def = endpoints[name] as EndpointDef;
      const keep = (self: object, value: unknown) =>
        Object.defineProperty(self, name, { value, writable: true, configurable: true, enumerable: true });
      return [
        name,
        {
          enumerable: true,
          configurable: false,
          get(this: Caller) {
            const method = (body?: unknown) => this[CALL](name, def, body);
            keep(this, method);
            return method;
          },
          // A test or a wrapper may replace a method of one client.
          set(this: Caller, value: unknown) {
            keep(this, value);
          },
        },
      ];
    }),
  ),
);

/** An object whose endpoint methods (`nodeinfo()`, `btcbalance(body)`, …) each go through `call`. */
export function withEndpointMethods(call: Caller[typeof CALL]): object {
  const client = Object.create(ENDPOINT_METHODS) as Caller;
  client[CALL] = call;
  return client;
}
