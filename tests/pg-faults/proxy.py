#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that forwards to a server and then goes silent,
as a link that stops carrying packets does: no FIN, no RST, the sockets stay
open and nothing more is forwarded either way.

    proxy.py PORTFILE TARGET_PORT LOG MODE [BYTES]

MODE: pass (forward everything), up BYTES (silent once BYTES went from the
client to the server), down BYTES (once BYTES went from the server to the
client), mute (accept, never forward: a server that does not answer the
connection). The listening port is written to PORTFILE; LOG gets one line
"up N down M" per connection when it closes (to measure a transfer)."""
import os
import socket
import sys
import threading

portfile, target, log, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
limit = int(sys.argv[5]) if len(sys.argv) > 5 else 0
held = []   # sockets of silenced connections: kept open until the proxy is killed


class Link:
    def __init__(self, client):
        self.client = client
        self.silent = threading.Event()
        self.count = {"up": 0, "down": 0}
        self.lock = threading.Lock()
        self.open = 2

    def pump(self, src, dst, way):
        try:
            while not self.silent.is_set():
                data = src.recv(65536)
                if not data:
                    break
                with self.lock:
                    if self.silent.is_set():
                        break
                    if mode == way and self.count[way] + len(data) >= limit:
                        data = data[:max(0, limit - self.count[way])]
                        self.silent.set()
                    self.count[way] += len(data)
                if data:
                    dst.sendall(data)
        except OSError:
            pass
        if self.silent.is_set():
            held.extend([src, dst])
            return
        with self.lock:
            self.open -= 1
            last = self.open == 0
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        if last:
            with open(log, "a") as f:
                f.write("up %d down %d\n" % (self.count["up"], self.count["down"]))


def serve(client):
    if mode == "mute":
        held.append(client)
        return
    server = socket.create_connection(("127.0.0.1", target))
    link = Link(client)
    threading.Thread(target=link.pump, args=(client, server, "up"), daemon=True).start()
    threading.Thread(target=link.pump, args=(server, client, "down"), daemon=True).start()


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % listener.getsockname()[1])
os.rename(portfile + ".tmp", portfile)
while True:
    conn, _ = listener.accept()
    serve(conn)
