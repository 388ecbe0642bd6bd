"""The documents that a spec's `$ref`s name: where they are, whether they may be read, reading them.

A spec is untrusted input, so reading what its references name is restricted (see `RefOptions`):

- Local files must lie inside the spec's own directory or the `--ref-root` directory, compared as
  resolved real paths (so `../`, absolute paths and symlinks cannot leave them). Only regular
  files are read. A file is known by its real path, and its own references resolve from there.
- Remote documents (`http(s)://`) need `--allow-remote-refs`, except that a spec fetched by URL
  may refer to documents on the same scheme and host under its own directory. Redirects are
  checked by the same rule. A remote document never reaches a local file (`file:` or a path).
- At most `MAX_LOCAL_FILES` files and `MAX_REMOTE_DOCUMENTS` remote documents are read, and at
  most `MAX_TOTAL_BYTES` bytes in all.

Every refusal or failure is a `RefFailure` carrying the reason, for a diagnostic; nothing raises
past the bundler.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urljoin, urlsplit

from openapi2mcp.load.source import _FETCH_TIMEOUT_SECONDS, LoadError, _decode, is_url, parse_text

if TYPE_CHECKING:
    import httpx

JSON = Any
MAX_LOCAL_FILES = 20_000
MAX_REMOTE_DOCUMENTS = 1_000
MAX_TOTAL_BYTES = 256 * 1024 * 1024
_REMOTE_FLAG = "--allow-remote-refs"


@dataclass(frozen=True)
class RefOptions:
    """What the references of a spec may reach besides the spec's own directory."""

    allow_remote_refs: bool = False
    ref_root: Path | None = None


DEFAULT_REF_OPTIONS = RefOptions()


class RefFailure(Exception):
    """A referenced document (or a place in it) that cannot be used, and why.

    `location` is the document's absolute path or URL when known; `key` identifies the failure for
    the one-warning-per-document rule."""

    def __init__(self, reason: str, location: str | None = None, key: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.location = location
        self.key = key if key is not None else location if location is not None else reason


class Sources:
    """Locates, checks and reads (once each) the documents referenced from the root spec."""

    def __init__(self, source: str, root_document: JSON, options: RefOptions) -> None:
        self.remote_root = is_url(source)
        if self.remote_root:
            self.root = source.partition("#")[0]
            parts = urlsplit(self.root)
            self._root_dir = f"{parts.scheme}://{parts.netloc}{parts.path.rsplit('/', 1)[0]}/"
        else:
            self.root = os.path.realpath(source)
            self._root_dir = os.path.dirname(self.root)
        self._local_roots = [self._root_dir] if not self.remote_root else []
        if options.ref_root is not None:
            self._local_roots.append(os.path.realpath(options.ref_root))
        self._ref_root_given = options.ref_root is not None
        self._allow_remote = options.allow_remote_refs
        self._documents: dict[str, JSON] = {self.root: root_document}
        self._failures: dict[str, RefFailure] = {}
        self._located: dict[tuple[str, str], str | RefFailure] = {}
        self._real_paths: dict[str, str] = {}  # the files of a directory name the same paths
        self._displayed: dict[tuple[str, str], str] = {}
        self._local_count = self._remote_count = self._bytes = 0
        self._client: httpx.Client | None = None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    # Where a reference points --------------------------------------------------------------------

    def locate(self, uri: str, base: str) -> str:
        """The absolute location (real path or URL, no fragment) of `uri` as written in `base`."""
        found = self._located.get((uri, base))
        if found is None:
            try:
                found = self._locate(uri, base)
            except RefFailure as failure:
                found = failure
            except ValueError:  # `//[bad`, a NUL byte...
                found = RefFailure(f"{uri!r} is not a valid URI reference", key=uri)
            self._located[(uri, base)] = found
        if isinstance(found, RefFailure):
            raise found
        return found

    def _locate(self, uri: str, base: str) -> str:
        scheme = urlsplit(uri).scheme.lower()
        if scheme in ("http", "https") or (is_url(base) and not scheme):
            url = urljoin(base, uri).partition("#")[0]
            self._check_url(url)
            return url
        if is_url(base):
            raise RefFailure(f"{uri!r}: a remote spec cannot refer to local files", key=uri)
        if scheme == "file":
            from urllib.request import url2pathname  # here: its import takes longer than most runs need

            path = url2pathname(unquote(urlsplit(uri).path))
        elif scheme:
            raise RefFailure(f"{uri!r}: URI scheme {scheme!r} is not supported", key=uri)
        else:
            path = os.path.join(os.path.dirname(base), unquote(uri))
        location = self._real_paths.get(path)
        if location is None:
            location = self._real_paths[path] = os.path.realpath(path)
        if not any(_inside(location, root) for root in self._local_roots):
            roots = "the spec's directory" + (" and the --ref-root directory" if self._ref_root_given else "")
            name = self.display(location, uri)
            raise RefFailure(
                f"{name!r} is outside {roots}; --ref-root DIR allows the files under DIR", location
            )
        return location

    def _check_url(self, url: str) -> None:
        if self._allow_remote or self._same_site(url):
            return
        reason = f"{url!r} is a remote document; {_REMOTE_FLAG} allows fetching it"
        if self.remote_root:
            reason = (
                f"{url!r} is not under the spec's own URL directory {self._root_dir!r}; "
                f"{_REMOTE_FLAG} allows fetching it"
            )
        raise RefFailure(reason, url)

    def _same_site(self, url: str) -> bool:
        if not self.remote_root:
            return False
        mine, theirs = urlsplit(self._root_dir), urlsplit(url)
        return (
            (mine.scheme, mine.netloc) == (theirs.scheme, theirs.netloc)
            and theirs.path.startswith(mine.path)
            and "/../" not in f"{unquote(theirs.path)}/"
        )

    def display(self, location: str, written: str = "") -> str:
        """How a document is named in messages: relative to the spec's directory where possible."""
        shown = self._displayed.get((location, written))
        if shown is None:
            shown = self._displayed[location, written] = self._display(location, written)
        return shown

    def _display(self, location: str, written: str) -> str:
        if is_url(location):
            return location[len(self._root_dir) :] if location.startswith(self._root_dir) else location
        if written and os.path.isabs(unquote(written)):
            return unquote(written)
        return Path(os.path.relpath(location, self._root_dir)).as_posix()

    # Reading ----------------------------------------------------------------------------------------

    def document(self, location: str) -> JSON:
        """The parsed document at `location` (read once); a RefFailure when it cannot be read."""
        if location in self._documents:
            return self._documents[location]
        if location in self._failures:
            raise self._failures[location]
        try:
            text = self._fetch(location) if is_url(location) else self._read(location)
            document = parse_text(text, self.display(location))
        except LoadError as error:
            failure = RefFailure(str(error), location)
        except RefFailure as error:
            failure = error
        except RecursionError:
            failure = RefFailure(f"{self.display(location)!r} is nested too deeply", location)
        else:
            self._documents[location] = document
            return document
        self._failures[location] = failure
        raise failure

    def _read(self, location: str) -> str:
        name = self.display(location)
        if not os.path.isfile(location):
            what = "is not a regular file" if os.path.exists(location) else "does not exist"
            raise RefFailure(f"{name!r} {what}", location)
        if self._local_count >= MAX_LOCAL_FILES:
            raise RefFailure(f"{name!r} not read: more than {MAX_LOCAL_FILES:,} files referenced", location)
        self._local_count += 1
        try:
            with open(location, "rb") as stream:
                raw = stream.read(MAX_TOTAL_BYTES - self._bytes + 1)
        except OSError as error:
            raise RefFailure(f"cannot read {name!r}: {error.strerror or error}", location) from None
        self._count_bytes(len(raw), name, location)
        return _decode(raw, name)

    def _fetch(self, url: str) -> str:
        if self._remote_count >= MAX_REMOTE_DOCUMENTS:
            raise RefFailure(f"{url!r} not fetched: more than {MAX_REMOTE_DOCUMENTS:,} remote documents", url)
        self._remote_count += 1
        import httpx  # here: a tenth of a second of start-up that only remote references need

        if self._client is None:
            self._client = httpx.Client(
                timeout=_FETCH_TIMEOUT_SECONDS,
                follow_redirects=True,
                event_hooks={"request": [self._check_redirect]},
            )
        try:
            with self._client.stream("GET", url) as response:
                if response.status_code >= 400:
                    raise RefFailure(f"cannot fetch {url!r}: HTTP {response.status_code}", url)
                chunks: list[bytes] = []
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    self._count_bytes(len(chunk), url, url)
        except (httpx.HTTPError, httpx.InvalidURL) as error:
            raise RefFailure(f"cannot fetch {url!r}: {error}", url) from None
        except RefFailure as error:  # an error status, or a redirect refused by `_check_redirect`
            raise RefFailure(error.reason if error.location else f"{url!r} {error.reason}", url) from None
        return _decode(b"".join(chunks), url)

    def _check_redirect(self, request: httpx.Request) -> None:
        url = str(request.url)
        if not (self._allow_remote or self._same_site(url)):
            raise RefFailure(f"redirects to {url!r}, which needs {_REMOTE_FLAG}")

    def _count_bytes(self, size: int, name: str, location: str) -> None:
        self._bytes += size
        if self._bytes > MAX_TOTAL_BYTES:
            raise RefFailure(
                f"{name!r} not read: the referenced documents exceed {MAX_TOTAL_BYTES:,} bytes", location
            )


def _inside(location: str, root: str) -> bool:
    return location == root or location.startswith(root.rstrip(os.sep) + os.sep)
