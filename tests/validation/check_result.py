"""What the accuracy check scripts (ctest label `accuracy`) share: the signed
error of a predicted ratio against a measured one, and the ending that prints
every failure and gives the exit status."""


def ratio_off_pct(measured, predicted):
    """predicted / measured - 1, percent: + means the prediction is the larger."""
    return 100.0 * (predicted / measured - 1.0)


def finish(failures):
    """Prints each failure; 1 if there were any, else 0."""
    for msg in failures:
        print("FAIL:", msg)
    return 1 if failures else 0
