"""The package's device probe for JAX (probes.py): the runner runs it in the lesson's
process, after the lesson, only when the lesson imported jax. Standalone, as the runner is."""


def devices():
    """The platform of each device the lesson's JAX sees: ['tpu', 'tpu', 'tpu', 'tpu']."""
    import jax

    return [device.platform for device in jax.devices()]
