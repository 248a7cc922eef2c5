"""The device probe of fakeaccel: runs in the lesson's process, after the lesson."""


def devices():
    import fakeaccel

    return fakeaccel.platforms()
