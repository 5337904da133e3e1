import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** drops every open connection and refuses new ones: the server looks gone; returns how many clients it cut off */
  cut(): number;
  /**
   * stops relaying on every open connection without closing it, and leaves new ones hanging: a
   * peer gone without a FIN (half-open TCP). restore() serves new connections again; the
   * stalled ones stay silent until the client gives up on them.
   */
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * A plain TCP relay in front of a real server (PostgreSQL here), so a test can take the
 * server away from one client and give it back without stopping the server other tests use.
 */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  const clients = new WeakSet<net.Socket>();
  let down = false;
  let stalled = false;
  const server = net.createServer((client) => {
    clients.add(client);
    if (down) {
      client.destroy();
      return;
    }
    if (stalled) {
      open.add(client);
      client.on('error', () => undefined);
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      down = true;
      let severed = 0;
      for (const s of open) {
        if (clients.has(s) && !s.destroyed) severed += 1;
        s.destroy();
      }
      open.clear();
      return severed;
    },
    stall() {
      stalled = true;
      for (const s of open) {
        s.unpipe();
        s.pause();
      }
    },
    restore() {
      down = false;
      stalled = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
