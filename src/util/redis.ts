/**
 * The part of a Redis client the Redis stores call (the token store of
 * `auth/`, the task store of `tasks/`): one contract, so a fleet passes the
 * same client to both. Types only.
 *
 * @module
 */

/**
 * The part of a Redis client the Redis stores call: the shape of node-redis
 * (`redis` on npm, v5 and later), whose clients (`createClient()`,
 * `createCluster()`) fit as they are. For another client, wrap its
 * commands in these four functions. Every key a store touches in one
 * command or script is a single key, so a cluster needs no hash tags.
 */
export interface RedisClientLike {
  /** `GET key`: the value, or `null`. */
  get(key: string): Promise<unknown>;
  /** `SET key value [NX] [PX ms]`: `"OK"`, or `null` when `NX` found the key. */
  set(
    key: string,
    value: string,
    options?: {
      condition?: "NX";
      expiration?: { type: "PX"; value: number };
    },
  ): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
  /** `EVAL script numkeys keys… args…`. */
  eval(
    script: string,
    options: { keys: string[]; arguments: string[] },
  ): Promise<unknown>;
}
