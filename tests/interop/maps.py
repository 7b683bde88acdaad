"""Which libpmix this Python process has mapped (the twin of maps.h for
the python3-pmix scripts beside it): the interop tests check that it is
ours. The scripts are run by path, so this module is found beside them."""


def libpmix():
    """The path of the first mapping of a file named libpmix.so*, or "none"."""
    with open("/proc/self/maps") as f:
        for line in f:
            if "/libpmix.so" in line:
                return line.split(None, 5)[-1].strip()
    return "none"
