#!/usr/bin/env python3
"""fake_github.py LOG PORTFILE: a stand-in for the GitHub REST API's issue
comments (the three calls ci/action/comment.sh makes): GET
/repos/O/R/issues/N/comments?per_page=&page= (pages of the stored
comments), POST /repos/O/R/issues/N/comments, PATCH
/repos/O/R/issues/comments/ID. Each call is appended to LOG as
"METHOD PATH"; after each call the comments are written to LOG.json. Serves
on 127.0.0.1 on a free port, written to PORTFILE. Runs until killed."""
import json, os, re, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlparse, parse_qs

log, portfile = sys.argv[1], sys.argv[2]
comments = []  # {"id", "issue", "body"}

class H(BaseHTTPRequestHandler):
    def _record(self):
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))

    def _reply(self, code, obj):
        # the comments first, whole (renamed into place): a caller that has
        # its reply reads them at once
        with open(log + ".json.tmp", "w") as f:
            json.dump(comments, f)
        os.rename(log + ".json.tmp", log + ".json")
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _auth(self):
        if self.headers.get("Authorization") != "Bearer test-token":
            self._reply(401, {"message": "Bad credentials"})
            return False
        return True

    def do_GET(self):
        self._record()
        if not self._auth():
            return
        u = urlparse(self.path)
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", u.path)
        if not m:
            return self._reply(404, {"message": "Not Found"})
        q = parse_qs(u.query)
        per, page = int(q.get("per_page", ["30"])[0]), int(q.get("page", ["1"])[0])
        mine = [c for c in comments if c["issue"] == int(m.group(1))]
        self._reply(200, mine[(page - 1) * per:page * per])

    def _body(self):
        n = int(self.headers.get("Content-Length", "0"))
        return json.loads(self.rfile.read(n))["body"]

    def do_POST(self):
        self._record()
        if not self._auth():
            return
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", self.path)
        if not m:
            return self._reply(404, {"message": "Not Found"})
        c = {"id": 1000 + len(comments), "issue": int(m.group(1)), "body": self._body()}
        comments.append(c)
        self._reply(201, c)

    def do_PATCH(self):
        self._record()
        if not self._auth():
            return
        m = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)", self.path)
        hit = [c for c in comments if m and c["id"] == int(m.group(1))]
        if not hit:
            return self._reply(404, {"message": "Not Found"})
        hit[0]["body"] = self._body()
        self._reply(200, hit[0])

    def log_message(self, *a):
        pass

srv = HTTPServer(("127.0.0.1", 0), H)
with open(portfile, "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
