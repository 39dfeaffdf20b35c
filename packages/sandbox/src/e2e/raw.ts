/** Test helper: a raw HTTPS request to a sandbox (to see headers and exact bodies). */
import { request } from "node:https";

/** Status code, headers and parsed body of a raw request. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request trusting the sandbox CA. */
export function raw(
  sandbox: { url: string; caCertPem: string },
  method: string,
  path: string,
  options: { token?: string; body?: string; contentType?: string; accept?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.contentType !== undefined) headers["content-type"] = options.contentType;
    if (options.accept !== undefined) headers.accept = options.accept;
    if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
    const req = request(`${sandbox.url}${path}`, { method, headers, ca: sandbox.caCertPem }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}
