/**
 * A loopback HTTP server that sends its body in tiny pieces (`Transfer-Encoding: chunked`, a few
 * bytes of body per chunk): a framing any server, or anyone on the path of a plain `http://`
 * target, may choose. The framed body is built once and written to the socket as it drains, so
 * the server costs little beside the client under test, whatever it offers.
 */
import { createServer, type Socket } from 'node:net';

interface TinyChunksOptions {
  /** The body, framed once; sent `repeat` times in a row (default once). */
  body: Buffer;
  /** Body bytes per chunk (the last chunk of the body may be shorter). */
  chunkBytes: number;
  repeat?: number;
  /** Extra response header lines, e.g. `content-type: text/html`. */
  headers?: readonly string[];
}

/** A listening server; `stop()` closes it and every connection it holds. */
interface TinyChunkServer {
  url: string;
  stop(): Promise<void>;
}

/** `body` as chunks of `chunkBytes`: `<hex size>\r\n<bytes>\r\n` each. */
function frame(body: Buffer, chunkBytes: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < body.length; i += chunkBytes) {
    const piece = body.subarray(i, i + chunkBytes);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, Buffer.from('\r\n', 'latin1'));
  }
  return Buffer.concat(parts);
}

/** Write `block` `times` times, waiting for the socket to drain, then the last chunk. */
function pump(socket: Socket, block: Buffer, times: number): void {
  let sent = 0;
  const more = (): void => {
    while (sent < times) {
      sent++;
      if (!socket.write(block)) {
        socket.once('drain', more);
        return;
      }
    }
    socket.end('0\r\n\r\n');
  };
  more();
}

async function startTinyChunkServer(options: TinyChunksOptions): Promise<TinyChunkServer> {
  if (!(Number.isInteger(options.chunkBytes) && options.chunkBytes >= 1))
    throw new RangeError(`expected chunkBytes to be a positive integer, found ${options.chunkBytes}`);
  const block = frame(options.body, options.chunkBytes);
  const head = [
    'HTTP/1.1 200 OK',
    'content-type: text/plain',
    ...(options.headers ?? []),
    'transfer-encoding: chunked',
    'connection: close',
    '',
    '',
  ].join('\r\n');
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {}); // the client hangs up at its cap: expected
    socket.once('data', () => {
      socket.write(head);
      pump(socket, block, options.repeat ?? 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/server-status?auto`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type { TinyChunkServer, TinyChunksOptions };
export { startTinyChunkServer };
