#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for the network tests, on 127.0.0.1 only.

usage: faultproxy.py LISTEN_PORT UPSTREAM_PORT
The first path segment picks the fault, the rest goes to the upstream:
  /pass/...      forwarded untouched
  /once/...      the first request for each (method, path) gets 500, then forwarded
  /always/...    always 500
  /truncate/...  forwarded, but a GET body is cut in half after a full
                 Content-Length and the connection closed
  /slow/...      forwarded, but a GET body trickles at 4 bytes a second
                 (a stalled or hostile server: sluice must give up)
  /delay/...     forwarded, but the answer to a GET of an object (*.zst)
                 comes after 0.5 s; each such GET is logged on stdout as
                 "delayed CLIENT-PORT PATH" (one port per connection)
WebDAV Destination headers are rewritten to the upstream.
"""
import http.server
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
from proxyutil import read_body, relay  # noqa: E402

LISTEN, UPSTREAM = int(sys.argv[1]), int(sys.argv[2])
seen = set()
# print() writes the line and its newline apart: two threads' lines ran
# together ("...zstdelayed ...") and the test counted 9 of 10
log_lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def handle_any(self):
        body = read_body(self)
        parts = self.path.split("/", 2)
        mode, rest = (parts[1], "/" + (parts[2] if len(parts) > 2 else "")) if len(parts) > 1 else ("pass", "/")
        if mode == "always" or (mode == "once" and (self.command, rest) not in seen):
            seen.add((self.command, rest))
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "delay" and self.command == "GET" and rest.endswith(".zst"):
            with log_lock:
                print("delayed %d %s" % (self.client_address[1], rest), flush=True)
            time.sleep(0.5)
        headers = dict(self.headers.items())
        if "Destination" in headers:
            dest = headers["Destination"]
            prefix = "http://127.0.0.1:%d/%s" % (LISTEN, mode)
            if dest.startswith(prefix):
                headers["Destination"] = "http://127.0.0.1:%d%s" % (UPSTREAM, dest[len(prefix):])
        status, data = relay(self, UPSTREAM, rest, body, headers.items())
        if mode == "truncate" and self.command == "GET" and status == 200:
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if mode == "slow" and self.command == "GET" and status == 200:
            self.end_headers()
            try:
                for i in range(0, len(data), 4):
                    self.wfile.write(data[i:i + 4])
                    self.wfile.flush()
                    time.sleep(1)
            except OSError:  # sluice gave up and closed the connection
                self.close_connection = True
            return
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_DELETE = do_MKCOL = do_MOVE = do_PROPFIND = do_HEAD = do_OPTIONS = handle_any


http.server.ThreadingHTTPServer(("127.0.0.1", LISTEN), Handler).serve_forever()
