"""A webhook receiver for Scripts/demo: listens on 127.0.0.1, prints each JSON body it gets.

Writes the port it bound to the file named on the command line, so the demo can find it.
"""
import http.server
import json
import sys


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        try:
            shown = json.dumps(json.loads(body), ensure_ascii=False)
        except ValueError:
            self.send_response(400)
            self.end_headers()
            return
        print(f"[webhook receiver] {self.command} {self.path}: {shown}", flush=True)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"ok":true}')

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
with open(sys.argv[1], "w") as port_file:
    port_file.write(str(server.server_address[1]))
server.serve_forever()
