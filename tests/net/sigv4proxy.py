#!/usr/bin/env python3
"""An S3 front that checks AWS Signature Version 4, for the network tests,
on 127.0.0.1 only: s3rver (npm) knows access key ids but does not compute V4
signatures, so behind it alone a request signed with a wrong secret passes.

usage: sigv4proxy.py LISTEN_PORT UPSTREAM_PORT KEY_ID:SECRET...
Every request with an Authorization header is checked as S3 does
(https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html):
the canonical request rebuilt from what arrived, the string to sign, the
signing key derived from the secret of the key id, the signature compared;
every x-amz-* header must be signed, host and x-amz-date too, the scope's
date must be x-amz-date's, a body must match x-amz-content-sha256 unless it
says UNSIGNED-PAYLOAD. A failure answers 403 with S3's error document
(SignatureDoesNotMatch, AccessDenied, XAmzContentSHA256Mismatch); an
unknown key id, or a good signature, is forwarded to the upstream.
Before serving, the checker is run on AWS's published S3 examples and the
proxy refuses to start unless it computes their signatures.
"""
import hashlib
import hmac
import http.server
import sys
from urllib.parse import quote, unquote

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
from proxyutil import read_body, relay  # noqa: E402


def uri_encode(s, keep_slash=False):
    # RFC 3986 unreserved characters stay; everything else %XX, upper case.
    return quote(s, safe="-_.~/" if keep_slash else "-_.~")


def canonical_query(raw):
    pairs = []
    for part in raw.split("&") if raw else []:
        name, _, value = part.partition("=")
        pairs.append((uri_encode(unquote(name)), uri_encode(unquote(value))))
    return "&".join("%s=%s" % p for p in sorted(pairs))


def canonical_request(method, raw_path, headers, signed, payload_hash):
    """headers: list of (name, value) as received."""
    path, _, query = raw_path.partition("?")
    values = {}
    for k, v in headers:
        values.setdefault(k.lower(), []).append(" ".join(v.strip().split()))
    lines = "".join("%s:%s\n" % (h, ",".join(values.get(h, []))) for h in signed)
    return "\n".join([method, uri_encode(unquote(path), keep_slash=True), canonical_query(query), lines,
                      ";".join(signed), payload_hash])


def signature(secret, amz_date, scope, creq):
    date, region, service, _ = scope.split("/")
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(creq.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


def parse_authorization(value):
    algo, _, rest = value.partition(" ")
    fields = {}
    for item in rest.split(","):
        k, _, v = item.strip().partition("=")
        fields[k] = v
    return algo, fields


def check(method, raw_path, headers, body, secrets):
    """None when the request is correctly signed (or not ours to judge), else (code, message)."""
    auth = [v for k, v in headers if k.lower() == "authorization"]
    if not auth:
        return None
    algo, f = parse_authorization(auth[0])
    if algo != "AWS4-HMAC-SHA256" or not {"Credential", "SignedHeaders", "Signature"} <= set(f):
        return ("AccessDenied", "not an AWS Signature Version 4 Authorization header")
    key_id, _, scope = f["Credential"].partition("/")
    if key_id not in secrets:
        return None  # the upstream answers InvalidAccessKeyId
    signed = f["SignedHeaders"].split(";")
    names = {k.lower() for k, _ in headers}
    for h in names:
        if h.startswith("x-amz-") and h not in signed:
            return ("AccessDenied", "There were headers present in the request which were not signed: " + h)
    for h in ("host", "x-amz-date", "x-amz-content-sha256"):
        if h not in signed:
            return ("AccessDenied", "the header %s must be signed" % h)
    if signed != sorted(signed):
        return ("SignatureDoesNotMatch", "SignedHeaders are not in order")
    amz_date = [v for k, v in headers if k.lower() == "x-amz-date"][0].strip()
    if scope.count("/") != 3 or not scope.endswith("/s3/aws4_request") or scope[:8] != amz_date[:8]:
        return ("SignatureDoesNotMatch", "credential scope %s does not fit x-amz-date %s" % (scope, amz_date))
    payload = [v for k, v in headers if k.lower() == "x-amz-content-sha256"][0].strip()
    if payload != "UNSIGNED-PAYLOAD" and payload != hashlib.sha256(body).hexdigest():
        return ("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was "
                "computed.")
    creq = canonical_request(method, raw_path, headers, signed, payload)
    if not hmac.compare_digest(signature(secrets[key_id], amz_date, scope, creq), f["Signature"]):
        return ("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you "
                "provided. Check your key and signing method.")
    return None


def self_test():
    """AWS's published examples of header-signed S3 requests (examplebucket)."""
    secrets = {"AKIAIOSFODNN7EXAMPLE": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    cred = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
    base = [("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-date", "20130524T000000Z"),
            ("x-amz-content-sha256", empty)]
    cases = [  # GET Object with a Range; GET Bucket (list objects)
        ("GET", "/test.txt", base + [("Range", "bytes=0-9")], "host;range;x-amz-content-sha256;x-amz-date",
         "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"),
        ("GET", "/?max-keys=2&prefix=J", base, "host;x-amz-content-sha256;x-amz-date",
         "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"),
    ]
    for method, path, headers, signed, sig in cases:
        auth = cred + "SignedHeaders=%s, Signature=%s" % (signed, sig)
        if check(method, path, headers + [("Authorization", auth)], b"", secrets) is not None:
            sys.exit("sigv4proxy: the checker does not reproduce AWS's example signature for %s %s" % (method, path))
        bad = auth[:-1] + ("0" if auth[-1] != "0" else "1")
        if check(method, path, headers + [("Authorization", bad)], b"", secrets) is None:
            sys.exit("sigv4proxy: the checker accepts a wrong signature for %s %s" % (method, path))


def error_document(code, message):
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message>"
            "<Resource></Resource><RequestId>sigv4proxy</RequestId></Error>" % (code, message)).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    secrets = {}
    upstream = 0

    def log_message(self, fmt, *args):
        pass

    def handle_any(self):
        body = read_body(self)
        headers = list(self.headers.items())
        verdict = check(self.command, self.path, headers, body, self.secrets)
        if verdict:
            data = error_document(*verdict)
            self.send_response(403)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            return
        _, data = relay(self, self.upstream, self.path, body, headers)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_PUT = do_DELETE = do_HEAD = do_POST = handle_any


if __name__ == "__main__":
    self_test()
    Handler.upstream = int(sys.argv[2])
    Handler.secrets = dict(a.split(":", 1) for a in sys.argv[3:])
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
