"""Local stand-ins for providers' servers on 127.0.0.1, speaking their documented wire format."""
