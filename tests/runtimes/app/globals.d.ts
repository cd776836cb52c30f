/** The few Deno and Bun globals the entries use, typed for the type check run under Node's types. */
declare const Deno: {
  args: string[];
  serve(options: { port: number }, handler: (request: Request) => Promise<Response>): unknown;
};
declare const Bun: {
  serve(options: { port: number; fetch: (request: Request) => Promise<Response> }): unknown;
};
