/**
 * JSON-RPC over WebSocket (`ws://`, `wss://`) as a viem transport, with the same batching and
 * response-id checks as HTTP (./json-rpc-batch.ts): each batch is one message, answered by one.
 *
 * One connection per transport, opened on demand. When it drops, every call waiting on it fails
 * as a transient fault and the client's retries (./client.ts) ask again; the next call opens a
 * new connection. A call that times out drops the connection too: a half-open TCP connection
 * (a peer gone without a FIN) never closes on its own and would swallow every later call.
 *
 * Not viem's `webSocket` transport: it stops reconnecting for good after one reconnect attempt
 * fails (a node down for longer than its delay), writes the failure to console.error, and opens
 * a second socket when calls arrive while the first is connecting, leaving one of them open.
 */
import WebSocket, { type RawData } from 'ws';
import { WebSocketRequestError, type Transport } from 'viem';
import { BodyTooLargeError, ConnectionClosedError, MalformedResponseError } from './errors.js';
import { batchingJsonRpc, idOf, isErrorWithoutId } from './json-rpc-batch.js';
import { maskAnswerErrors, maskerOf, rpcUrlSecrets } from './url-secrets.js';
import { splitCredentials, type JsonRpcHttpOptions } from './json-rpc-http.js';

export interface JsonRpcWebSocketOptions extends JsonRpcHttpOptions {
  /** the connection ended while calls were waiting on it (they are retried by the client) */
  onDisconnect: (reason: string) => void;
}

export interface ClosableTransport {
  transport: Transport;
  /** closes the connection; calls made afterwards fail */
  close(): void;
}

export function jsonRpcWebSocket(url: string, options: JsonRpcWebSocketOptions): ClosableTransport {
  const { fetchUrl, headers } = splitCredentials(url);
  const connection = new Connection(fetchUrl, headers, options);
  const mask = maskerOf(rpcUrlSecrets(url));
  const transport = batchingJsonRpc({
    ...options,
    url: fetchUrl,
    send: async (body, calls, signal) => maskAnswerErrors(await connection.exchange(body, calls.map((c) => String(c.id)), signal), mask),
    failure: (calls, cause) => new WebSocketRequestError({ body: { batch: calls }, cause, url: fetchUrl }),
    identity: { key: 'webSocket', name: 'WebSocket JSON-RPC', type: 'webSocket' },
  });
  return { transport, close: () => connection.close() };
}

/** One exchange waiting for its answer: the message that carries one of its ids. */
interface Waiting {
  ids: readonly string[];
  socket: WebSocket;
  settle(error: unknown, answer?: unknown): void;
}

class Connection {
  private socket: WebSocket | null = null;
  private opening: Promise<WebSocket> | null = null;
  private readonly waiting = new Map<string, Waiting>();
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly options: JsonRpcWebSocketOptions,
  ) {}

  /** Sends one batch body; resolves with the parsed message answering it. */
  async exchange(body: string, ids: readonly string[], signal: AbortSignal | undefined): Promise<unknown> {
    const socket = await abortable(this.open(), signal);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        entry.settle(signal?.reason ?? new DOMException('This operation was aborted', 'AbortError'));
        // a timed-out call may sit on a half-open connection: start afresh
        this.drop(socket, new ConnectionClosedError('dropped after a call timed out or was aborted'));
      };
      const entry: Waiting = {
        ids,
        socket,
        settle: (error, answer) => {
          for (const id of ids) if (this.waiting.get(id) === entry) this.waiting.delete(id);
          signal?.removeEventListener('abort', onAbort);
          if (error === null) resolve(answer);
          else reject(error);
        },
      };
      for (const id of ids) this.waiting.set(id, entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) return onAbort();
      socket.send(body, (error) => {
        if (error) entry.settle(error);
      });
    });
  }

  close(): void {
    this.closed = true;
    if (this.socket) this.drop(this.socket, clientClosed());
  }

  private open(): Promise<WebSocket> {
    if (this.closed) return Promise.reject(clientClosed());
    if (this.socket?.readyState === WebSocket.OPEN) return Promise.resolve(this.socket);
    this.opening ??= new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(this.url, {
        headers: this.headers,
        maxPayload: this.options.maxResponseBytes,
        perMessageDeflate: false,
        ...(this.options.timeoutMs > 0 ? { handshakeTimeout: this.options.timeoutMs } : {}),
      });
      let failure: Error | null = null;
      socket.on('message', (data: RawData) => this.receive(socket, data));
      socket.on('error', (error: Error & { code?: string }) => {
        failure =
          error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? new BodyTooLargeError(this.options.maxResponseBytes) : withHandshakeStatus(error);
      });
      socket.once('open', () => {
        this.opening = null;
        if (this.closed) {
          socket.terminate();
          reject(clientClosed());
          return;
        }
        this.socket = socket;
        resolve(socket);
      });
      socket.once('close', (code: number) => {
        if (this.opening !== null && this.socket !== socket) {
          this.opening = null;
          reject(failure ?? new ConnectionClosedError(`connection refused (close code ${code})`));
        }
        this.drop(socket, failure ?? new ConnectionClosedError(`connection closed (code ${code})`));
      });
    });
    return this.opening;
  }

  /** Fails every call waiting on `socket` and forgets it; the next call connects again. */
  private drop(socket: WebSocket, reason: Error): void {
    if (this.socket === socket) {
      this.socket = null;
      if (!this.closed) this.options.onDisconnect(reason.message);
    }
    socket.terminate();
    for (const entry of new Set(this.waiting.values())) if (entry.socket === socket) entry.settle(reason);
  }

  private receive(socket: WebSocket, data: RawData): void {
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      // a message that does not parse cannot be told apart from the next: start afresh
      this.drop(socket, new MalformedResponseError(`malformed JSON message (${text.length} chars)`, { cause: error }));
      return;
    }
    const items = Array.isArray(message) ? (message as unknown[]) : [message];
    const entry = items.map((item) => this.waiting.get(idOf(item))).find((e) => e !== undefined);
    if (entry !== undefined) {
      entry.settle(null, message);
      return;
    }
    const onThisSocket = [...new Set(this.waiting.values())].filter((e) => e.socket === socket);
    // A batch refused as a whole comes back as one error without an id: it answers the one
    // batch in flight; with several in flight it cannot be placed, and they are all asked again.
    if (items.length === 1 && isErrorWithoutId(items[0])) {
      if (onThisSocket.length === 1) onThisSocket[0]!.settle(null, message);
      else this.drop(socket, new ConnectionClosedError('an id-less error with several batches in flight'));
    }
    // Anything else answers a call that already gave up (timed out, aborted): ignored.
  }
}

/** Calls after close() end like aborted ones: never retried. */
const clientClosed = (): Error => new DOMException('the RPC client was closed', 'AbortError');

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined); // its outcome no longer matters to anyone
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * A refused handshake as the HTTP status it was (ws says only `Unexpected server response: 404`
 * in the message), so that the failure is classified as the same answer over HTTP would be: a
 * 404 or 401 is no outage to wait out, a 429 or 503 is.
 */
function withHandshakeStatus(error: Error): Error {
  const status = /^Unexpected server response: (\d{3})$/.exec(error.message)?.[1];
  return status === undefined ? error : Object.assign(error, { status: Number(status) });
}
