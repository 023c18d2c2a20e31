// The server's HTTP API (docs/server.md): JSON in and out, errors as their `detail`.

export class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

export async function api(path, options = {}) {
  const response = await fetch(path, { credentials: "same-origin", headers: { "Content-Type": "application/json" }, ...options });
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  if (!response.ok) {
    const detail = body && body.detail;
    throw new ApiError(typeof detail === "string" ? detail : detail ? JSON.stringify(detail) : `the server answered ${response.status}`,
      response.status);
  }
  return body;
}

export const post = (path, body) => api(path, { method: "POST", body: body === undefined ? undefined : JSON.stringify(body) });

/** This browser's share of a match's dice seed: the server committed to its own before we chose ours. */
export function ownSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A challenge's (or rematch's) body with this browser's seed: the server commits to its own seed
 * first (POST /api/commitments), and only then do we choose ours, so neither side can pick the dice. */
export async function withOwnSeed(body = {}) {
  const { token } = await post("/api/commitments");
  return { ...body, seed: ownSeed(), commitment: token };
}
