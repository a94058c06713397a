#!/usr/bin/env python3
"""A complete raw-HTTP client of the service in Python 3 with the `cryptography` package and the standard library,
written from docs/protocol.md: it signs requests, encrypts bodies, verifies and decrypts answers, and opens the
device's answer. Run it without arguments for its usage."""

import argparse
import base64
import datetime
import hashlib
import hmac
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
import uuid

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives import padding as block_padding
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

# docs/protocol.md#dialects: the LaunchKey SDKs' spelling. The other one is API-JWT, aud "api" and X-API-JWT.
SCHEME = "IOV-JWT"
API_IDENTITY = "lka"
JWT_HEADER = "X-IOV-JWT"
KEY_ID_HEADER = "X-IOV-Key-Id"
# docs/protocol.md#time-and-replay: the clock difference the service allows, and the SDKs' token lifetime.
LEEWAY_SECONDS = 30
LIFETIME_SECONDS = 5

SIGNATURE_HASHES = {"RS256": hashes.SHA256, "RS384": hashes.SHA384, "RS512": hashes.SHA512}
OAEP_HASHES = {"RSA-OAEP": hashes.SHA1, "RSA-OAEP-256": hashes.SHA256}
BODY_HASHES = {"S256": hashlib.sha256, "S384": hashlib.sha384, "S512": hashlib.sha512}


class Refusal(Exception):
    """The service said no, or its answer cannot be trusted."""


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def from_b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_json(value):
    return b64url(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def key_id(public_key):
    """docs/protocol.md#key-ids: MD5 of the DER SubjectPublicKeyInfo, lowercase hex pairs joined by colons."""
    der = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return ":".join(re.findall("..", hashlib.md5(der).hexdigest()))


# ---- JWS (RFC 7515): RSASSA-PKCS1-v1_5 over `header.claims` ---------------------------------------------------


def sign_jwt(header, claims, private_key):
    signing_input = f"{b64url_json(header)}.{b64url_json(claims)}"
    signature = private_key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), SIGNATURE_HASHES[header["alg"]]())
    return f"{signing_input}.{b64url(signature)}"


# ---- JWE (RFC 7516) with A256CBC-HS512 (RFC 7518 §5.2) --------------------------------------------------------


def oaep(alg):
    return padding.OAEP(mgf=padding.MGF1(OAEP_HASHES[alg]()), algorithm=OAEP_HASHES[alg](), label=None)


def authentication_tag(mac_key, aad, iv, ciphertext):
    """RFC 7518 §5.2.2.1: HMAC-SHA-512 over AAD ‖ IV ‖ ciphertext ‖ AL, cut to 32 bytes. The AAD is the protected
    header exactly as it travels (base64url text), and AL is its length in bits as a 64-bit big-endian integer."""
    al = (len(aad) * 8).to_bytes(8, "big")
    return hmac.new(mac_key, aad + iv + ciphertext + al, hashlib.sha512).digest()[:32]


def encrypt_jwe(value, recipient_kid, recipient_key, alg):
    """docs/protocol.md#request-bodies: a JSON value as a compact JWE to the recipient's key."""
    protected = b64url_json({"alg": alg, "enc": "A256CBC-HS512", "kid": recipient_kid})
    # The 64-byte CEK is two keys: HMAC-SHA-512 takes the first half, AES-256-CBC the second.
    cek = os.urandom(64)
    iv = os.urandom(16)
    encrypted_key = recipient_key.encrypt(cek, oaep(alg))
    padder = block_padding.PKCS7(128).padder()
    padded = padder.update(json.dumps(value).encode("utf-8")) + padder.finalize()
    encryptor = Cipher(algorithms.AES(cek[32:]), modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(padded) + encryptor.finalize()
    tag = authentication_tag(cek[:32], protected.encode("ascii"), iv, ciphertext)
    return ".".join([protected, b64url(encrypted_key), b64url(iv), b64url(ciphertext), b64url(tag)])


def decrypt_jwe(jwe, keys):
    """Opens a compact JWE with the private key its `kid` names in `keys` (a dict of kid → private key)."""
    parts = jwe.split(".")
    if len(parts) != 5:
        raise Refusal("not a compact JWE")
    protected, encrypted_key, iv, ciphertext, tag = parts
    header = json.loads(from_b64url(protected))
    if header.get("alg") not in OAEP_HASHES or header.get("enc") != "A256CBC-HS512":
        raise Refusal(f"JWE {header.get('alg')}/{header.get('enc')} refused")
    private_key = keys.get(header.get("kid"))
    if private_key is None:
        raise Refusal(f"the JWE is encrypted to {header.get('kid')}, not to a key of ours")
    cek = private_key.decrypt(from_b64url(encrypted_key), oaep(header["alg"]))
    if len(cek) != 64:
        raise Refusal("the JWE content key is not 64 bytes")
    iv, ciphertext = from_b64url(iv), from_b64url(ciphertext)
    expected = authentication_tag(cek[:32], protected.encode("ascii"), iv, ciphertext)
    if not hmac.compare_digest(from_b64url(tag), expected):
        raise Refusal("the JWE authentication tag does not match")
    decryptor = Cipher(algorithms.AES(cek[32:]), modes.CBC(iv)).decryptor()
    unpadder = block_padding.PKCS7(128).unpadder()
    padded = decryptor.update(ciphertext) + decryptor.finalize()
    return json.loads(unpadder.update(padded) + unpadder.finalize())


# ---- Signed calls -------------------------------------------------------------------------------------------------


def fetch(url, method="GET", headers=None, body=None):
    """One HTTP exchange: (status, headers, body bytes), error statuses included."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


class Client:
    def __init__(self, base_url, issuer, private_key_pem, signature="RS512", encryption="RSA-OAEP-256"):
        if signature not in SIGNATURE_HASHES or encryption not in OAEP_HASHES:
            raise ValueError(f"unknown algorithm {signature} / {encryption}")
        self.base_url = base_url.rstrip("/")
        self.issuer = issuer
        self.private_key = serialization.load_pem_private_key(private_key_pem, password=None)
        self.kid = key_id(self.private_key.public_key())
        self.signature = signature
        self.encryption = encryption
        self.api_keys = {}
        self.offset_seconds = None

    def keys(self):
        """The private keys answers are encrypted to: here, the one key we sign with."""
        return {self.kid: self.private_key}

    def now(self):
        """The service's clock (docs/protocol.md#public-endpoints), so that iat/nbf/exp land inside its window."""
        if self.offset_seconds is None:
            _, _, body = fetch(f"{self.base_url}/public/v3/ping")
            api_time = json.loads(body)["api_time"].replace("Z", "+00:00")
            self.offset_seconds = round(datetime.datetime.fromisoformat(api_time).timestamp() - time.time())
        return int(time.time()) + self.offset_seconds

    def api_key(self, kid=None):
        """An API public key, the current one (no kid) or one by kid; PEM text, its kid in a header we check."""
        if kid is not None and kid in self.api_keys:
            return kid, self.api_keys[kid]
        # A kid from a response header goes into a URL: only the shape a kid has (docs/protocol.md#key-ids).
        if kid is not None and not re.fullmatch(r"[0-9a-f]{2}(:[0-9a-f]{2}){15}", str(kid)):
            raise Refusal(f"bad kid {kid!r}")
        path = "/public/v3/public-key" + ("" if kid is None else f"/{kid}")
        status, headers, body = fetch(f"{self.base_url}{path}")
        if status != 200:
            raise Refusal(f"GET {path} answered {status}")
        public_key = serialization.load_pem_public_key(body)
        actual = key_id(public_key)
        if actual != headers.get(KEY_ID_HEADER) or (kid is not None and actual != kid):
            raise Refusal(f"GET {path} returned a key whose kid is {actual}")
        self.api_keys[actual] = public_key
        return actual, public_key

    def call(self, method, path_and_query, subject=None, body=None):
        """Signs and sends one request (docs/protocol.md#signed-requests), verifies the answer and returns its status
        and decrypted body. `subject` is the entity acted for (docs/protocol.md#subjects), the issuer unless given."""
        subject = subject or self.issuer
        path, _, query = path_and_query.partition("?")
        # docs/protocol.md#request-bodies: every body is a JWE to the API's current key.
        payload = None
        if body is not None:
            payload = encrypt_jwe(body, *self.api_key(), self.encryption).encode("ascii")
        now = self.now()
        jti = str(uuid.uuid4())
        # docs/protocol.md#the-request-claim and #body-hash: hash and func only when there is a body.
        request = {"meth": method, "path": path}
        if query:
            request["query"] = query
        if payload:
            request.update(hash=hashlib.sha256(payload).hexdigest(), func="S256")
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "aud": API_IDENTITY,
            "iat": now,
            "nbf": now,
            "exp": now + LIFETIME_SECONDS,
            "jti": jti,
            "request": request,
        }
        token = sign_jwt({"alg": self.signature, "typ": "JWT", "kid": self.kid}, claims, self.private_key)
        headers = {"Authorization": f"{SCHEME} {token}"}
        if payload:
            headers["Content-Type"] = "application/jose"
        status, response_headers, response_body = fetch(f"{self.base_url}{path_and_query}", method, headers, payload)
        self.verify_response(status, response_headers, response_body, jti, subject)
        if not response_body:
            return status, None
        # docs/protocol.md#errors: 401 and 5xx bodies are plain JSON; every other body is a JWE to our key.
        if status == 401 or status >= 500:
            return status, json.loads(response_body)
        return status, decrypt_jwe(response_body.decode("ascii"), self.keys())

    def verify_response(self, status, headers, body, jti, subject):
        """docs/protocol.md#verifying-a-response: nothing in an answer is trusted before its JWT checks out."""
        token = headers.get(JWT_HEADER)
        if not token:
            raise Refusal(f"the {status} answer has no {JWT_HEADER} header")
        parts = token.split(".")
        if len(parts) != 3:
            raise Refusal("the response JWT is not a compact JWS")
        header, claims = json.loads(from_b64url(parts[0])), json.loads(from_b64url(parts[1]))
        if str(header.get("alg")) not in SIGNATURE_HASHES or not isinstance(header.get("kid"), str):
            raise Refusal(f"response JWT alg {header.get('alg')} or kid {header.get('kid')} refused")
        _, public_key = self.api_key(header["kid"])
        signing_input = f"{parts[0]}.{parts[1]}".encode("ascii")
        try:
            algorithm = SIGNATURE_HASHES[header["alg"]]()
            public_key.verify(from_b64url(parts[2]), signing_input, padding.PKCS1v15(), algorithm)
        except InvalidSignature as error:
            raise Refusal("the response JWT signature does not verify") from error
        now = self.now()
        claim = claims.get("response") or {}
        audience = claims.get("aud") if isinstance(claims.get("aud"), list) else [claims.get("aud")]
        func = claim.get("func")
        if body:
            body_matches = str(func) in BODY_HASHES and claim.get("hash") == BODY_HASHES[func](body).hexdigest()
        else:
            body_matches = "hash" not in claim and "func" not in claim
        iat, nbf, exp = (claims.get(name) for name in ("iat", "nbf", "exp"))
        current = all(isinstance(t, (int, float)) for t in (iat, nbf, exp)) and exp > now - LEEWAY_SECONDS
        checks = [
            (claims.get("iss") == API_IDENTITY, f"iss is not {API_IDENTITY}"),
            (self.issuer in audience, "aud is not our issuer"),
            (claims.get("sub") == subject, "sub is not the subject we asked for"),
            (claims.get("jti") == jti, "jti is not our request's"),
            (current and iat <= now + LEEWAY_SECONDS and nbf <= now + LEEWAY_SECONDS, "it is not current"),
            (claim.get("status") == status, f"response.status {claim.get('status')} is not {status}"),
            (claim.get("location") == headers.get("Location"), "response.location differs"),
            (claim.get("cache") == headers.get("Cache-Control"), "response.cache differs"),
            (body_matches, "the body hash does not match"),
        ]
        for ok, why in checks:
            if not ok:
                raise Refusal(f"the response JWT does not describe this answer: {why}")


# ---- The program ------------------------------------------------------------------------------------------------


def accepted(status, body):
    """A 4xx or 5xx answer as one line: status, error code and detail (docs/protocol.md#error-codes)."""
    if status < 400:
        return body
    body = body or {}
    raise Refusal(f"refused: {status} {body.get('error_code', '')} {body.get('error_detail', '')}".strip())


def list_directories(client):
    print(json.dumps(accepted(*client.call("GET", "/organization/v3/directories")), indent=2))


def authorize(client, username, subject, context):
    """Asks, polls until answered and opens the device's answer (docs/protocol.md#creating-a-request, #states,
    #auth_jwe)."""
    body = {"username": username}
    if context:
        body["context"] = context
    created = accepted(*client.call("POST", "/service/v3/auths", subject, body))
    auth_request = created["auth_request"]
    print(f"auth request {auth_request}: waiting for {username} to answer", flush=True)
    while True:
        time.sleep(1)
        status, answer = client.call("GET", f"/service/v3/auths/{auth_request}", subject)
        if status == 204:
            continue
        if status == 408:
            raise Refusal(f"auth request {auth_request} expired unanswered")
        answer = accepted(status, answer)
        print(json.dumps(decrypt_jwe(answer["auth_jwe"], client.keys()), indent=2))
        return


def main():
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("--sign", choices=["RS256", "RS512"], default="RS512", help="request JWT algorithm")
    options.add_argument("--encrypt", choices=sorted(OAEP_HASHES), default="RSA-OAEP-256", help="body key encryption")
    parser = argparse.ArgumentParser(description="A raw-HTTP client of the service, written from docs/protocol.md.")
    parser.add_argument("base_url")
    parser.add_argument("issuer", help="the signing entity: org:<id>, dir:<id> or svc:<id>")
    parser.add_argument("private_key", help="its private key, PEM")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("directories", parents=[options], help="list the organization's directories (org:<id>)")
    auth = commands.add_parser("auth", parents=[options], help="ask a user to approve and print the answer")
    auth.add_argument("username")
    auth.add_argument("--subject", help="the service to act for, svc:<id> (default: the issuer)")
    auth.add_argument("--context", help="what the user is asked to approve")
    args = parser.parse_args()
    try:
        with open(args.private_key, "rb") as file:
            client = Client(args.base_url, args.issuer, file.read(), args.sign, args.encrypt)
        if args.command == "directories":
            list_directories(client)
        else:
            authorize(client, args.username, args.subject, args.context)
    except Refusal as refusal:
        sys.exit(str(refusal))
    except Exception as error:  # anything else (unreachable service, unreadable key, broken JSON) in one line too
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
