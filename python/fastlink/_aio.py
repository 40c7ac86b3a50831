"""`async for ev in nl.events(...)` (and a Mirror): the asyncio side of an EventStream.

Imported by EventStream.__aiter__ on first use, so `import fastlink` does not import asyncio.
The stream's socket is watched with loop.add_reader; read() never blocks, so the event loop
never waits inside fastlink.
"""
import asyncio


async def iterate(stream):
    """Yields the stream's events as they come; raises EventOverflow like read() does."""
    loop = asyncio.get_running_loop()
    fd = stream.fileno()
    while True:
        for event in stream.read():
            yield event
        ready = loop.create_future()
        loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
        try:
            await ready
        finally:
            loop.remove_reader(fd)
