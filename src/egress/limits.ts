// Every bound of the network gate, in one place, with the reason beside it.

const KiB = 1024;
const MiB = 1024 * KiB;

export const EGRESS_LIMITS = {
  /**
   * The head of a CONNECT request (request line and headers). A real client sends a line and a
   * few headers; anything bigger is an attack on the proxy's memory.
   */
  proxyHeadBytes: 8 * KiB,
  /** Time to send the whole head of a CONNECT request: a slow sender (slowloris) is cut off. */
  proxyHeadTimeoutMs: 10_000,
  /**
   * After a refusal the proxy keeps reading (and dropping) what the client still sends for this
   * long before it closes: closing on unread bytes resets the connection, and the reset can
   * overtake the refusal on its way to the client.
   */
  proxyLingerMs: 2_000,
  /** Time to open the TCP connection to an allowed target before the client gets a 504. */
  proxyDialTimeoutMs: 10_000,
  /** Connections the proxy serves at once for one task: a sandbox is one agent, not a crawler. */
  proxyConnections: 256,
  /** Distinct targets written to proxy.log; past it one notice is written and the rest dropped. */
  proxyLoggedTargets: 10_000,
  /** A CONNECT target is a DNS name (at most 253 bytes), a colon and a port. */
  targetBytes: 300,
  /** The headers of one request to the API relay. Model requests carry few, small headers. */
  relayHeaderBytes: 32 * KiB,
  /** Time to send the headers of one request to the relay. */
  relayHeadersTimeoutMs: 30_000,
  /**
   * The body of one request to the relay. Model requests are big (long conversations, images,
   * documents as base64); the public API refuses more than 32 MB, so this is generous.
   */
  relayBodyBytes: 64 * MiB,
  /**
   * After its 413 for a body that grew past relayBodyBytes, the relay reads and drops up to this
   * much more of it before it cuts the connection. A client that sends its whole body before it
   * reads the answer is still sending then, and closing at once would reset the connection
   * under it and lose the 413 (seen under load, as a client left waiting).
   */
  relayDrainBytes: 64 * MiB,
  /** Time to receive one whole request body; a model request is sent in seconds. */
  relayRequestTimeoutMs: 5 * 60_000,
  /**
   * Silence from the upstream before the relay gives up on it. A streaming model response
   * sends keep-alive events far more often than this.
   */
  relayUpstreamIdleMs: 10 * 60_000,
  /** Requests the relay serves at once for one task. */
  relayConnections: 64,
  /**
   * The most of a refused request's path the relay's answer quotes back: enough to see which
   * call was refused, not a way to fill an error message with the sandbox's junk.
   */
  relayShownPathBytes: 256,
  /**
   * The shortest base64 form of the key the relay scrubs from answers. The raw key is always
   * scrubbed; a shorter base64 run (from a short gateway token) would match other base64 data,
   * such as an image in a model's answer, and corrupt it.
   */
  relayEncodedKeyMinChars: 16,
  /**
   * A unix socket path, in bytes: sun_path on Linux holds 108 bytes with the closing NUL. A
   * longer path cannot be listened on at all, so it is refused with a hint instead.
   */
  socketPathBytes: 107,
  /**
   * The whole of `warden doctor --check-api`'s request to one API, answer included: a model
   * listing answers in well under a second, so a silence this long is an upstream to look at.
   */
  apiCheckTimeoutMs: 10_000,
  /**
   * One event of a metered event stream that the meter keeps to read. The event with the usage
   * is small for Anthropic and Gemini; OpenAI's response.completed repeats the whole answer,
   * which stays far below this. A longer event still passes to the agent untouched; it is only
   * not read, so its usage, if it had any, is not counted.
   */
  meterEventBytes: 8 * MiB,
  /**
   * A metered answer that is not an event stream (plain JSON, or Gemini's JSON array) is copied
   * aside up to this size to be read once it ends; past it the copy is dropped and the answer
   * passes unread. Each request in flight may hold this much.
   */
  meterJsonBytes: 16 * MiB,
  /**
   * The most one token count of one request is taken as: a million context windows. Sums of
   * such counts and their prices stay exact and finite, and a count this large reaches any cap.
   */
  meterTokensPerCount: 1_000_000_000_000,
  /**
   * The highest price per million tokens the price table may hold: a hundred times the dearest
   * model's output, so a slip of the decimal point in the table is caught when it is read.
   */
  meterPricePerMillionUSD: 10_000,
  /** A model name longer than this is not a model's name; the request is priced as unknown. */
  meterModelNameChars: 128,
  /** Distinct unpriced model names the relay warns of; past it the warnings stop. */
  meterUnpricedWarnings: 32,
  /**
   * The body of a 429 answer the relay copies aside to read a reset time from (Gemini's
   * retryDelay): such an error is a few hundred bytes; past this the copy is dropped.
   */
  limitBodyBytes: 64 * KiB,
  /** A reset header's value longer than this is no time, and is not read. */
  limitValueChars: 64,
  /** The furthest reset taken at its word: past a year the value is nonsense, not a limit. */
  limitFurthestResetMs: 366 * 24 * 3600 * 1000,
  /** How often node checks the header and request timeouts of open connections. */
  timeoutCheckIntervalMs: 1_000,
} as const;
