"""Receives Formwell webhooks and checks their Standard Webhooks signature.

Python's standard library only. Run: WEBHOOK_SECRET=whsec_... PORT=3000 python3 verify_webhook.py
"""

import base64
import hashlib
import hmac
import json
import os
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 5 * 60


def verify_webhook(secret, headers, raw_body, now=None):
    """True when one v1 signature of webhook-signature signs this id, timestamp and raw body."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures:
        return False
    if not (timestamp.isascii() and timestamp.isdigit()):
        return False
    now = time.time() if now is None else now
    if abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return True
    return False


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        raw_body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not verify_webhook(os.environ["WEBHOOK_SECRET"], self.headers, raw_body):
            self.send_response(400)
            self.end_headers()
            self.wfile.write(b"invalid signature\n")
            return
        event = json.loads(raw_body)
        # Deliveries are at least once: skip a webhook-id you have already handled.
        print(f"received {event['type']} {self.headers['webhook-id']}", flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "3000"))), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()
