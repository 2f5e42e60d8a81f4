"""How a model's weights are loaded, one spec for every task and build that reads a model:
the dtype they are read in, where they are put (one device, or sharded over the GPUs a
process sees and offloaded to CPU memory and disk by accelerate's big-model inference),
whether the checkpoint's own code may run, and a PEFT adapter over them.

The scoring code is the same whatever the spec: inputs go to the device of the first layer,
and log-softmax is fp32.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

DTYPES = ("auto", "bf16", "fp16", "fp32")
TORCH_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}
DEVICE_MAPS = ("auto", "balanced", "balanced_low_0", "sequential")
_MEMORY = re.compile(r"(cpu|disk|cuda:\d+|\d+)=(\d+(?:\.\d+)?\s*[KMGT]i?B)", re.I)


@dataclass(frozen=True)
class Loading:
    """The options of `from_pretrained` a run chooses (see `BatchSettings`)."""

    dtype: str = "auto"
    device_map: str | None = None
    max_memory: tuple[str, ...] = ()
    offload_folder: str | None = None
    trust_remote_code: bool = False
    adapter: str | None = None

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise InputError(f"dtype must be one of {', '.join(DTYPES)}, not {self.dtype!r}")
        if self.device_map is not None and self.device_map not in DEVICE_MAPS:
            raise InputError(
                f"--device-map must be one of {', '.join(DEVICE_MAPS)}, not {self.device_map!r}"
            )
        if (self.max_memory or self.offload_folder) and self.device_map is None:
            raise InputError("--max-memory and --offload-folder place a model by --device-map: "
                             "give --device-map auto (or balanced, sequential)")  # fmt: skip
        self.memory()  # a malformed entry is refused here, not when the model loads

    def memory(self) -> dict | None:
        """``--max-memory cuda:0=20GiB,cpu=64GiB`` as accelerate's ``max_memory`` (GPUs by
        index)."""
        if not self.max_memory:
            return None
        out = {}
        for entry in self.max_memory:
            match = _MEMORY.fullmatch(entry.strip())
            if match is None:
                raise InputError(
                    f"--max-memory {entry!r}: give DEVICE=SIZE, DEVICE cuda:N (or N), cpu or "
                    "disk, SIZE such as 20GiB or 500MB"
                )
            device, size = match.groups()
            device = device.lower()
            gpu = device[0].isdigit() or device.startswith("cuda:")
            out[int(device.removeprefix("cuda:")) if gpu else device] = size.replace(" ", "")
        return out

    def weights_dtype(self, config) -> str:
        """The dtype the weights are read in: the one asked for, or (``auto``) the checkpoint's
        own, as its config records it; float32 where it names none."""
        if self.dtype != "auto":
            return TORCH_DTYPES[self.dtype]
        value = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
        name = str(value).removeprefix("torch.") if value is not None else ""
        return name if name in TORCH_DTYPES.values() else "float32"

    def options(self, config, device: str = "cpu") -> dict:
        """Keyword arguments of `from_pretrained` for the model's weights. A device map
        places the model over every GPU the process sees; a process given one GPU
        (``cuda:k``: a worker of ``--num-proc``, a rank of torchrun) places its replica on
        that GPU alone, with CPU memory and disk for the rest."""
        import torch

        options = {
            "dtype": getattr(torch, self.weights_dtype(config)),
            "trust_remote_code": self.trust_remote_code,
        }
        if self.device_map is not None:
            options["device_map"] = self.device_map
            memory = self.memory()
            if device.startswith("cuda:"):
                memory = own_gpu(memory, int(device.split(":")[1]))
            if memory:
                options["max_memory"] = memory
            if self.offload_folder:
                options["offload_folder"] = str(Path(self.offload_folder).expanduser())
        return options


def own_gpu(memory: dict | None, gpu: int) -> dict:
    """``max_memory`` restricted to one GPU (and the CPU and disk): what is given for it, or
    what accelerate finds free there."""
    if memory is None:
        from accelerate.utils import get_max_memory

        memory = get_max_memory()
    return {k: v for k, v in memory.items() if k == gpu or isinstance(k, str)}


def with_adapter(model, adapter: str, revision: str | None = None):
    """The model with a PEFT adapter's weights merged in: the scoring code then reads a plain
    transformers model, and scores are those of the adapted model."""
    try:
        from peft import PeftModel
    except ImportError as err:
        raise InputError("--adapter needs peft: pip install peft") from err
    try:
        adapted = PeftModel.from_pretrained(model, adapter, revision=revision)
    except (OSError, ValueError) as err:
        message = " ".join(str(err).split())
        raise InputError(f"cannot load the adapter {adapter}: {message}") from err
    return adapted.merge_and_unload()


def first_device(model):
    """Where a model's inputs go: the device of its first layer (the input embeddings), or,
    where accelerate offloaded them, the device its hooks run them on."""
    import torch

    placed = getattr(model, "hf_device_map", None) or {}
    devices = [d for d in placed.values() if d not in ("disk", "meta")]
    weight = model.get_input_embeddings().weight
    if weight.device.type != "meta":
        return weight.device
    return torch.device(f"cuda:{devices[0]}" if devices and isinstance(devices[0], int) else
                        (devices[0] if devices else "cpu"))  # fmt: skip
