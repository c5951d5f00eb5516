"""A software passkey for the account tests: a WebAuthn authenticator in a few lines.

It makes the ``PublicKeyCredential.toJSON()`` documents a browser sends: a registration
(attestation format ``none``, an ES256 key) and assertions signed over the authenticator data
and the client data's hash, exactly as the WebAuthn specification lays them out. The server
checks them with py_webauthn as it checks a browser's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

#: Authenticator data flags: user present, user verified, attested credential data.
UP, UV, AT = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftKey:
    """One passkey: a P-256 key pair, its credential id, and its signature counter."""

    def __init__(self, rp_id: str = "testserver", origin: str = "http://testserver") -> None:
        self.rp_id = rp_id
        self.origin = origin
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = secrets.token_bytes(32)
        self.count = 0
        self.user_handle: bytes = b""

    @property
    def id(self) -> str:
        return b64url(self.credential_id)

    def _cose_key(self) -> bytes:
        n = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {1: 2, 3: -7, -1: 1, -2: n.x.to_bytes(32, "big"), -3: n.y.to_bytes(32, "big")}
        )

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": origin or self.origin}
        ).encode()

    def _auth_data(self, flags: int, rp_id: str | None, attested: bytes = b"") -> bytes:
        rp_hash = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.count) + attested

    def register(
        self, options: dict[str, Any], *, origin: str | None = None, rp_id: str | None = None
    ) -> dict[str, Any]:
        """The credential ``navigator.credentials.create`` would give for ``options``."""
        self.user_handle = unb64url(options["user"]["id"])
        attested = (
            bytes(16)  # AAGUID: none
            + struct.pack(">H", len(self.credential_id))
            + self.credential_id
            + self._cose_key()
        )
        auth_data = self._auth_data(UP | UV | AT, rp_id, attested)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client = self._client_data("webauthn.create", options["challenge"], origin)
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def assert_(
        self,
        options: dict[str, Any],
        *,
        origin: str | None = None,
        rp_id: str | None = None,
        flags: int = UP | UV,
    ) -> dict[str, Any]:
        """The assertion ``navigator.credentials.get`` would give for ``options``."""
        self.count += 1
        auth_data = self._auth_data(flags, rp_id)
        client = self._client_data("webauthn.get", options["challenge"], origin)
        signature = self.key.sign(
            auth_data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256())
        )
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(self.user_handle),
            },
            "clientExtensionResults": {},
        }
