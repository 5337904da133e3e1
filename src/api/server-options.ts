import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import { ConfigError, type ApiConfig } from '../config/config.js';
import { SECURITY_HEADERS } from './plugins/security-headers.js';

const RAW_SECURITY_HEADERS = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/** Node's own answers to a request it could not read, in our documented shape. */
function rawAnswer(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'Request timeout' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'Request header fields too large' };
  return { status: 400, message: 'Bad request' };
}

/**
 * A request Node could not parse or did not receive in time never reaches Fastify: it is
 * answered here, on the socket, with a documented body and the security headers. Nothing is
 * logged: the error carries the raw bytes of the request (`rawPacket`), keys included.
 */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = rawAnswer(error.code);
  const body = JSON.stringify({ message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n${RAW_SECURITY_HEADERS}\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * How long a connection may take for what, so a client that connects and stalls (no request,
 * headers a byte at a time, an unread answer) holds its socket for seconds, not minutes. Node
 * checks the request and header deadlines every `connectionsCheckingInterval` (30 s unless
 * told), so that is set to a second.
 */
export function serverTimeouts(api: ApiConfig): Partial<FastifyHttpOptions<Server>> {
  const { connectionTimeoutMs, requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = api;
  if (requestTimeoutMs > 0 && headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`EXPLORER_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed EXPLORER_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  return {
    connectionTimeout: connectionTimeoutMs,
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    http: { requestTimeout: requestTimeoutMs, headersTimeout: headersTimeoutMs, connectionsCheckingInterval: 1_000 },
    clientErrorHandler,
  };
}
