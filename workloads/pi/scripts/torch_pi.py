# torch backend: matmul and nn.Conv1d/Conv2d on the CPU or a CUDA device.
# On a GPU the module, inputs and outputs live on the device and the driver
# synchronises it before starting and stopping each sample's clock.


def setup(params):
    import torch

    torch.set_grad_enabled(False)  # inference: no autograd graph in the timings
    if params.get("threads"):
        torch.set_num_threads(int(params["threads"]))
    versions = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda or "",
        "torch_threads": torch.get_num_threads(),
    }
    if params["device"] == "gpu":
        if not torch.cuda.is_available():
            raise RuntimeError(
                "device: gpu, but CUDA is not available to torch %s (built with CUDA %s, %d devices visible)"
                % (torch.__version__, torch.version.cuda or "none", torch.cuda.device_count())
            )
        device = torch.device("cuda", torch.cuda.current_device())
        sync = torch.cuda.synchronize
        versions["gpu"] = torch.cuda.get_device_name(device)
        versions["cudnn"] = torch.backends.cudnn.version() or ""
    else:
        device = torch.device("cpu")
        sync = lambda: None
        versions["blas"] = blas_libraries()
    dtypes = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64}
    dtype = dtypes[params["dtype"]]
    gen = torch.Generator().manual_seed(params["seed"])

    def rand(*shape):
        # Uniform in [0.5, 1.5), drawn on the CPU for reproducibility, then moved.
        return (torch.rand(*shape, generator=gen, dtype=torch.float64) + 0.5).to(device=device, dtype=dtype)

    pi = params["pi"]
    if pi == "matmul":
        n = params["matrix_size"]
        a, b = rand(n, n), rand(n, n)
        c = torch.empty((n, n), device=device, dtype=dtype)

        def op():
            torch.matmul(a, b, out=c)

        expected = (n, n)
        result = lambda: c
    elif pi in ("conv1d", "conv2d"):
        g = params["geometry"]
        B, H, W, C = g["batch"], g["input_height"], g["input_width"], g["input_channels"]
        KH, KW, O, s = g["filter_height"], g["filter_width"], g["output_channels"], g["strides"]
        ph, pw = g["pad_height"], g["pad_width"]
        OH, OW = params["out_height"], params["out_width"]
        if pi == "conv1d":
            if params["channels_last"]:
                raise ValueError("torch conv1d supports data_format NCW only")
            conv = torch.nn.Conv1d(C, O, KW, stride=s, padding=pw, bias=False)
            x = rand(B, C, W)
            expected = (B, O, OW)
        else:
            conv = torch.nn.Conv2d(C, O, (KH, KW), stride=s, padding=(ph, pw), bias=False)
            x = rand(B, C, H, W)
            expected = (B, O, OH, OW)
        with torch.no_grad():
            conv.weight.copy_(rand(*conv.weight.shape))
        conv = conv.to(device=device, dtype=dtype)  # the module goes where its input is
        if pi == "conv2d" and params["channels_last"]:
            x = x.contiguous(memory_format=torch.channels_last)
            conv = conv.to(memory_format=torch.channels_last)
        out = [None]

        def op():
            out[0] = conv(x)

        result = lambda: out[0]
    else:
        raise ValueError("torch backend has no PI %r" % pi)

    op()
    sync()
    if tuple(result().shape) != expected:
        raise AssertionError("output shape %s, expected %s" % (tuple(result().shape), expected))
    if result().device.type != device.type:
        raise AssertionError("output on %s, expected %s" % (result().device, device))
    return Bench(op, sync, versions)
