"""What the accuracy check scripts (ctest label `accuracy`) share: their
command line, the signed error of a predicted ratio against a measured one,
and the ending that prints every failure and gives the exit status."""

import argparse


def parse_args(doc, argv, tolerance=None, tolerance_help=""):
    """The checks' command line: --preflight BINARY, and --tolerance (a float,
    default `tolerance`) for the checks that take one."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preflight", required=True)
    if tolerance is not None:
        ap.add_argument("--tolerance", type=float, default=tolerance, help=tolerance_help)
    return ap.parse_args(argv)


def ratio_off_pct(measured, predicted):
    """predicted / measured - 1, percent: + means the prediction is the larger."""
    return 100.0 * (predicted / measured - 1.0)


def finish(failures):
    """Prints each failure; 1 if there were any, else 0."""
    for msg in failures:
        print("FAIL:", msg)
    return 1 if failures else 0
