/**
 * One JSON-RPC message POSTed to a hub's `/mcp` with an API key, as a Streamable HTTP client sends it: JSON in,
 * both answer kinds accepted, the protocol version named.
 */
export function mcpPost(
  url: string,
  key: string,
  message: unknown,
  version = '2025-06-18',
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
    },
    body: JSON.stringify(message),
  });
}
