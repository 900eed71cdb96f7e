"""Screenshots of `lantern serve` for the docs: headless Chromium (Debian's `chromium` package) opens the page
at WIDTH x HEIGHT pixels, asks QUESTION in its form, waits for the answer and saves a PNG, driven over the Chrome
DevTools Protocol. A docs tool, not part of the app or its tests: it needs `chromium` and the `websockets`
package (`pip install websockets`), neither of which Lantern depends on.

usage: python scripts/screenshot_serve.py URL WIDTH HEIGHT OUT.png [QUESTION]
e.g.   lantern serve --bundle corpus_bundle/esp32-starter.sqlite --search-only --port 8799 &
       python scripts/screenshot_serve.py http://127.0.0.1:8799/ 390 844 docs/screenshot-serve-phone.png "My OLED stays blank"
"""
import asyncio
import base64
import json
import subprocess
import sys
import time
import urllib.request

try:
    import websockets
except ImportError:
    raise SystemExit("This docs tool needs the websockets package: pip install websockets.") from None
url, w, h, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
question = sys.argv[5] if len(sys.argv) > 5 else ""
proc = subprocess.Popen(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                         "--remote-debugging-port=9333", f"--window-size={w},{h}", "about:blank"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(50):
        try:
            pages = json.load(urllib.request.urlopen("http://127.0.0.1:9333/json"))
            break
        except Exception:
            time.sleep(0.2)
    ws_url = [p for p in pages if p["type"] == "page"][0]["webSocketDebuggerUrl"]
    async def main():
        async with websockets.connect(ws_url, max_size=50_000_000) as ws:
            n = 0
            async def call(method, **params):
                nonlocal n
                n += 1
                await ws.send(json.dumps({"id": n, "method": method, "params": params}))
                while True:
                    msg = json.loads(await ws.recv())
                    if msg.get("id") == n:
                        return msg.get("result", {})
            await call("Emulation.setDeviceMetricsOverride", width=w, height=h, deviceScaleFactor=1, mobile=w < 500)
            await call("Page.navigate", url=url)
            await asyncio.sleep(3)
            if question:
                js = (f"document.getElementById('question').value = {json.dumps(question)};"
                      "document.getElementById('ask-form').requestSubmit();")
                await call("Runtime.evaluate", expression=js)
                await asyncio.sleep(12)
            shot = await call("Page.captureScreenshot", format="png")
            open(out, "wb").write(base64.b64decode(shot["data"]))
    asyncio.run(main())
finally:
    proc.kill()
