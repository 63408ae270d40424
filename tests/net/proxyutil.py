"""What the network tests' proxies (faultproxy.py, sigv4proxy.py) share:
reading a request's body, and passing a request on to the upstream server
on 127.0.0.1 with its answer sent back."""
import http.client


def read_body(handler):
    length = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(length) if length else b""


def relay(handler, upstream, path, body, headers):
    """Send handler's request (method, then path, body and headers: pairs)
    to 127.0.0.1:upstream, and send its status and headers back, the body's
    length as Content-Length. Returns (status, body): the caller ends the
    headers and writes the body (or not, or a part)."""
    fwd = {k: v for k, v in headers if k.lower() not in ("host", "connection")}
    conn = http.client.HTTPConnection("127.0.0.1", upstream, timeout=10)
    conn.request(handler.command, path, body=body, headers=fwd)
    resp = conn.getresponse()
    data = resp.read()
    handler.send_response(resp.status)
    for k, v in resp.getheaders():
        if k.lower() not in ("content-length", "connection", "transfer-encoding"):
            handler.send_header(k, v)
    handler.send_header("Content-Length", str(len(data)))
    return resp.status, data
