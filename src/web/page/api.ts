// The page's side of the server: every request carries the token in the Authorization header,
// and live views read server-sent events from a fetch, which (unlike EventSource) can send it.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint: string | undefined,
  ) {
    super(message);
  }
}

export interface ServerEvent {
  readonly event: string;
  readonly id: number | undefined;
  readonly data: unknown;
}

export class Api {
  constructor(private readonly token: string) {}

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, ...extra };
  }

  async #answer<T>(response: Response): Promise<T> {
    const body = (await response.json().catch(() => ({}))) as {
      error?: { code?: string; message?: string; hint?: string };
    };
    if (!response.ok) {
      const error = body.error ?? {};
      throw new ApiError(
        response.status,
        error.code ?? "ERROR",
        error.message ?? response.statusText,
        error.hint,
      );
    }
    return body as T;
  }

  async get<T>(path: string): Promise<T> {
    return this.#answer<T>(await fetch(path, { headers: this.#headers() }));
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(path, {
      method: "POST",
      headers: this.#headers({ "content-type": "application/json" }),
      body: JSON.stringify(body),
    });
    return this.#answer<T>(response);
  }

  /** Reads the server-sent events at `path` until the stream ends or `signal` aborts. */
  async stream(
    path: string,
    signal: AbortSignal,
    onEvent: (event: ServerEvent) => void,
  ): Promise<void> {
    const response = await fetch(path, { headers: this.#headers(), signal });
    const body = response.body;
    if (!response.ok || body === null) {
      await this.#answer(response);
      return;
    }
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let pending = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      pending += value;
      let end: number;
      while ((end = pending.indexOf("\n\n")) >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const parsed = parseBlock(block);
        if (parsed !== undefined) onEvent(parsed);
      }
    }
  }
}

function parseBlock(block: string): ServerEvent | undefined {
  let event = "message";
  let id: number | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "id") id = Number(value);
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return undefined;
  try {
    return { event, id, data: JSON.parse(data.join("\n")) as unknown };
  } catch {
    return undefined;
  }
}
