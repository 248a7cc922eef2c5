"""A course-local plugin that probes a library of its own for the run's receipt, as
docs/extending.md's torch example does: fakeaccel (a module beside the test's lesson) says
which devices it sees, as torch.cuda or jax would."""


def register(api):
    api.device_probe("fakeaccel", "FakeAccel", "fakeaccel_probe.py")
