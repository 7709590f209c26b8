"""A model reply's body, bounded on the wire and decoded: no decompression bomb reaches memory.

An HTTP library decodes a compressed body a chunk at a time, and a chunk of a gzip or deflate stream can
decode to a thousand times its size: a 1 MB reply of zeros decodes to about 1 GB before any check on the
decoded bytes can run. So the client asks for ``gzip`` and ``deflate`` only, reads the raw bytes itself,
and :class:`BoundedBody` decodes them with ``zlib``'s ``max_length``: never more than the limit plus one
byte is produced, however the body was compressed, and the bytes on the wire are bounded too (a
``Content-Length`` over the limit is refused before a byte is read). An encoding it did not ask for is
refused rather than passed through undecoded.
"""

from __future__ import annotations

import zlib

ACCEPT_ENCODING = "gzip, deflate"
"""What the client asks for: the encodings :class:`BoundedBody` decodes under its limit."""


class ReplyTooLarge(Exception):
    """The reply passed a limit; the message says which (already phrased)."""


class _Inflater:
    """One gzip (every member of it) or deflate (zlib-wrapped or raw) layer, producing at most ``room`` bytes
    a call."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.decoder: zlib._Decompress | None = None
        self.pending = b""

    def _new(self, head: bytes) -> zlib._Decompress:
        if self.encoding == "deflate":  # a zlib header, else raw deflate (both are sent as "deflate")
            wrapped = len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
            return zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        return zlib.decompressobj(zlib.MAX_WBITS | 16)

    def feed(self, data: bytes, room: int) -> bytes:
        """Decode ``data`` (and what an earlier call left), returning at most ``room`` bytes; raises
        :class:`ReplyTooLarge` when more would follow."""
        data = self.pending + data
        self.pending = b""
        out = bytearray()
        while data:
            if self.decoder is None:
                if self.encoding == "deflate" and len(data) < 2:
                    self.pending = data
                    break
                self.decoder = self._new(data[:2])
            try:
                out += self.decoder.decompress(data, room - len(out) + 1)
            except zlib.error as exc:
                raise ValueError(f"the reply's {self.encoding} encoding is broken ({exc})") from None
            if len(out) > room:
                raise ReplyTooLarge("decoded")
            if self.decoder.unconsumed_tail:
                data = self.decoder.unconsumed_tail
                continue
            if self.decoder.eof and self.decoder.unused_data and self.encoding != "deflate":
                data, self.decoder = self.decoder.unused_data, None  # the next gzip member
                continue
            break
        return bytes(out)


class BoundedBody:
    """The bytes of one reply, fed as they arrive off the wire.

    Args:
        content_encoding: the reply's ``Content-Encoding`` header (None or ``identity``: as sent).
        limit: the most bytes on the wire, and the most bytes decoded.

    Raises:
        ReplyTooLarge: from :meth:`feed` and :func:`check_length`, saying which limit was passed.
        ValueError: an encoding that was not asked for, or a broken one.
    """

    def __init__(self, content_encoding: str | None, limit: int) -> None:
        layers = [e.strip().lower() for e in (content_encoding or "").split(",") if e.strip()]
        layers = [e for e in layers if e != "identity"]
        unknown = [e for e in layers if e not in ("gzip", "x-gzip", "deflate")]
        if unknown:
            raise ValueError(f"the reply is encoded as {unknown[0][:40]!r}, which was not asked for")
        self.limit = limit
        self.wire = 0
        self.body = bytearray()
        self.layers = [_Inflater("deflate" if e == "deflate" else "gzip") for e in reversed(layers)]
        """Decoded in the reverse of the order they were applied."""

    def feed(self, raw: bytes) -> None:
        self.wire += len(raw)
        if self.wire > self.limit:
            raise ReplyTooLarge(f"the reply is over {self.limit:,} bytes on the wire")
        data = raw
        for layer in self.layers:
            try:
                data = layer.feed(data, self.limit - len(self.body))
            except ReplyTooLarge:
                raise ReplyTooLarge(
                    f"the reply decodes ({layer.encoding}) to over {self.limit:,} bytes; "
                    f"stopped after {self.wire:,} bytes on the wire"
                ) from None
        self.body += data
        if len(self.body) > self.limit:
            raise ReplyTooLarge(f"the reply is over {self.limit:,} bytes")

    def finish(self) -> bytes:
        return bytes(self.body)


def check_length(content_length: str | None, limit: int) -> None:
    """A declared ``Content-Length`` over the limit is refused before any of the body is read."""
    if content_length and content_length.strip().isdigit() and int(content_length) > limit:
        raise ReplyTooLarge(f"the reply is over {limit:,} bytes (its Content-Length says {int(content_length):,})")
