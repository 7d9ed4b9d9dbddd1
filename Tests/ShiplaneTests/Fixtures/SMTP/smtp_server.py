"""A real SMTP server for Shiplane's email tests: aiosmtpd on 127.0.0.1.

Prints "READY <port>" once it listens, then writes one JSON line per received message to --out:
the envelope (MAIL FROM, RCPT TO), the login used, whether the session was TLS, and the message
parsed with Python's email package (headers decoded, each part's type, charset, transfer encoding
and decoded text). Runs until its standard input closes.
"""
import argparse
import asyncio
import json
import socket
import ssl
import sys
import threading
from email import message_from_bytes, policy

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Authenticator:
    def __init__(self, user, password):
        self.user = user.encode()
        self.password = password.encode()

    def __call__(self, server, session, envelope, mechanism, auth_data):
        ok = auth_data.login == self.user and auth_data.password == self.password
        if ok:
            session.shiplane_mechanism = mechanism
        return AuthResult(success=ok, handled=False, auth_data=auth_data)


class Handler:
    def __init__(self, out, lose_answers):
        self.out = out
        self.lose_answers = lose_answers

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        # A mailbox that does not exist, as a real server answers for it.
        if address.startswith("nobody@"):
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message = message_from_bytes(raw, policy=policy.default)
        parts = []
        for part in message.walk():
            if part.is_multipart():
                continue
            parts.append({
                "content_type": part.get_content_type(),
                "charset": part.get_content_charset(),
                "transfer_encoding": part.get("Content-Transfer-Encoding"),
                "text": part.get_content(),
            })
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "login": session.login_data.decode() if isinstance(session.login_data, bytes) else None,
            "mechanism": getattr(session, "shiplane_mechanism", None),
            "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
            "content_type": message.get_content_type(),
            "headers": {key: str(value) for key, value in message.items()},
            "raw_headers": raw.split(b"\r\n\r\n", 1)[0].decode("ascii", "replace"),
            "parts": parts,
            "defects": [str(defect) for defect in message.defects],
        }
        with open(self.out, "a") as handle:
            handle.write(json.dumps(record) + "\n")
        if self.lose_answers > 0:
            self.lose_answers -= 1
            server.transport.close()
            return "451 closed"
        return "250 OK queued as shiplane-test"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["starttls", "tls", "none"], default="starttls")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--out", required=True)
    parser.add_argument("--lose-answers", type=int, default=0)
    arguments = parser.parse_args()

    context = None
    if arguments.mode != "none":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(arguments.cert, arguments.key)
    options = {}
    if arguments.user:
        options["authenticator"] = Authenticator(arguments.user, arguments.password)
        options["auth_required"] = True
        # aiosmtpd counts only STARTTLS as TLS for this check; implicit TLS is TLS from the start.
        options["auth_require_tls"] = arguments.mode == "starttls"
    if arguments.mode == "starttls":
        options["tls_context"] = context
        options["require_starttls"] = True
    elif arguments.mode == "tls":
        options["ssl_context"] = context
    port = free_port()
    controller = Controller(Handler(arguments.out, arguments.lose_answers), hostname="127.0.0.1", port=port, **options)
    controller.start()
    print(f"READY {port}", flush=True)
    sys.stdin.read()
    controller.stop()


if __name__ == "__main__":
    main()
