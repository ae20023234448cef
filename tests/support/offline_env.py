"""The environment a test runs a hosted judge's provider in: a dummy key, nothing off loopback."""

OFFLINE_OPENAI = {
    "OPENAI_API_KEY": "sk-dummy-standin",
    # The task is probed for the model it is created for unless that is INSPECT_EVAL_MODEL's.
    "INSPECT_EVAL_MODEL": "",
    # Any address but loopback goes to a proxy that is not there.
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
}
