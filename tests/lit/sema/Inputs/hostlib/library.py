# Module-level code that calls Python's library: every entry of CHECKS is what Python computes
# for it (True), and the kernel stores them as int32 ones.
import importlib.metadata
import re

import triton
import triton.language as tl
from packaging.version import InvalidVersion, Version


def version_of(spec):
    """A version helper as projects write one: a Version, a distribution name or a version."""
    if isinstance(spec, Version):
        return spec
    if isinstance(spec, str) and re.match(r"^[A-Za-z](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$", spec):
        try:
            spec = importlib.metadata.version(spec)
        except importlib.metadata.PackageNotFoundError:
            return None
    digits = re.match(r"[0-9]+(?:\.[0-9]+)*", str(spec))
    if digits is None:
        digits = re.search(r"[0-9]+(?:\.[0-9]+)*", spec)
    if digits is None:
        return None
    text = digits.group(0).rstrip(".")
    if text != spec:
        text += ".1"
    return Version(text)


def parses(text):
    try:
        Version(text)
    except ValueError:  # InvalidVersion is a ValueError
        return False
    return True


CHECKS = (
    # packaging.version and importlib.metadata
    version_of(triton.__version__) >= version_of("3.0.0"),
    version_of("triton") == Version("3.6.0"),
    version_of(version_of("Triton")) == Version("3.6"),
    version_of("no-such-distribution") is None,
    version_of("2.5.0+cu121") == Version("2.5.0.1"),
    version_of("release-10.2") is None and version_of("r10.2") is None,
    version_of("10.2-release") == Version("10.2.1") and version_of("=1.2") == Version("1.2.1"),
    Version("1.0rc1") < Version("1.0"),
    Version("1.0.dev0") < Version("1.0a1") < Version("1.0b2") < Version("1.0rc1"),
    Version("1.0.post1") > Version("1.0+local") > Version("1.0"),
    Version("1.0+abc.5") > Version("1.0+abc.foo"),
    Version("1.0") == Version("1.0.0") != Version("1.0.1"),
    Version("2.10") > Version("2.9"),
    Version("1!0.1") > Version("9.9"),
    Version("v1.2-RC.3").pre == ("rc", 3),
    str(Version("1.0-ALPHA-1.POST2-dev3")) == "1.0a1.post2.dev3",
    Version("3.6.0").release == (3, 6, 0),
    Version("1.2").micro == 0 and Version("1.2").minor == 2,
    Version("1.2.3rc1+local").base_version == "1.2.3",
    Version("1.0.dev1").is_prerelease and not Version("1.0").is_prerelease,
    Version("1.0") != "1.0",
    Version("1.0") in (Version("0.9"), Version("1.0.0")),
    not parses("1.0-foo") and parses(" 1.0 "),
    # re
    re.sub(r"\s*\([^)]*\)\s*$", "", "NVIDIA H100 (80GB HBM3) ") == "NVIDIA H100",
    re.sub(r"(\w+)-(\w+)", r"\2_\1", "ab-cd ef-gh") == "cd_ab gh_ef",
    re.sub(r"(?P<k>\w)=", r"\g<k>:\g<1>", "a=b=") == "a:ab:b",
    re.sub("x*", "-", "abxd") == "-a-b--d-",
    re.sub("a", "b", "aaa", count=2) == "bba",
    re.search(r"(?P<major>\d+)\.(?P<minor>\d+)", "cuda 12.4").group("minor") == "4",
    re.search(r"(\d+)\.(\d+)", "cuda 12.4").group(1, 2) == ("12", "4"),
    re.match(r"a$", "a\n") is not None and re.match(r"a\Z", "a\n") is None,
    re.match(r"a.b", "a\nb") is None and re.match(r"a.b", "a\nb", re.S) is not None,
    re.fullmatch(r"a|ab", "ab") is not None,
    re.match(r"\d", "x1") is None and re.search(r"\d", "x1").start() == 1,
    re.findall(r"\d+", "v1.22.333") == ["1", "22", "333"],
    re.findall(r"(\w)=(\d)", "a=1 b=2") == [("a", "1"), ("b", "2")],
    re.match(r"[]a]+", "]a]x").end() == 3,
    re.compile(r"X", re.I).search("axb").span() == (1, 2),
    re.match(r"(a)(b)?", "a").groups() == ("a", None),
    re.match(r"(a)(b)?", "a").span(2) == (-1, -1),
    re.match(r"^b", "a\nb", re.M) is None and re.search(r"^b$", "a\nb\nc", re.M) is not None,
    re.match(r"""a  b  # comment
                 c""", "abc", re.X) is not None,
    re.escape("1.0+cu") == "1\\.0\\+cu",
    # str, its methods and isinstance
    "  x.y \n".strip() == "x.y" and "..1.0..".rstrip(".") == "..1.0" and "xxa".lstrip("x") == "a",
    "a,b,,c".split(",") == ["a", "b", "", "c"] and " a  b ".split() == ["a", "b"],
    "a".split(",") != ("a",) and isinstance("a".split(), list) and not isinstance((1,), list),
    list((1, 2)) == [1, 2] and tuple([1]) == (1,) and str([1, "b"]) == "[1, 'b']",
    "a b c".split(" ", 1) == ["a", "b c"] and "2.5.0+cu121".split("+")[0] == "2.5.0",
    "Gfx942:sramecc".lower().startswith(("x", "gfx9")) and "abc".upper().endswith("BC"),
    "-".join(("a", "b")) == "a-b" and "a.b.c".replace(".", "", 1) == "ab.c" and "42".isdigit(),
    str(1.5e16) == "1.5e+16" and str(0.1) == "0.1" and str(1e-05) == "1e-05",
    str(2.0) == "2.0" and str(-0.0) == "-0.0" and str(123456789.125) == "123456789.125",
    str(True) == "True" and str(None) == "None" and str(7) == "7" and str((1, "a'")) == "(1, \"a'\")",
    "abc" < "abd" and "b" > "abc" and "a" <= "a" and "+cu" in "2.5.0+cu121" and "x" not in "",
    " \x1ca\x1f ".strip() == "a" and "a\x1eb".split() == ["a", "b"],
    isinstance(True, int) and not isinstance(1, bool) and isinstance(1.0, float),
    isinstance((1,), (tuple, list)) and not isinstance("s", (int, float)),
    isinstance(tl.float32, tl.dtype) and not isinstance(None, str),
    bool("x") and not bool(()) and not bool(None),
    None == None and (1, "a") == (1, "a") and (1, 2) != (1,) and "1" != 1 and None != 0,
    "" in (None, "") and "x" not in (None, ""),
    getattr(Version("1.0"), "major") == 1,
)


@triton.jit
def checks(X):
    for i in tl.static_range(len(CHECKS)):
        tl.store(X + i, 1 if CHECKS[i] else 0)
