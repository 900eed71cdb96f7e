"""What build.spec leaves out of the installer (scripts/dist_trim.py) and the size table
(scripts/dist_sizes.py), on made-up file lists: no PyInstaller run needed."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


dist_trim = _load("dist_trim")
dist_sizes = _load("dist_sizes")
P = "PySide6/Qt/plugins/"


def test_unused_qt_plugins_are_dropped_and_the_ones_a_desktop_needs_kept():
    toc = [(P + name, "/src/" + name, "BINARY") for name in (
        "platforms/libqxcb.so", "platforms/libqwayland.so", "platforms/libqoffscreen.so", "platforms/libqvnc.so",
        "platforms/libqeglfs.so", "platformthemes/libqgtk3.so", "platformthemes/libqxdgdesktopportal.so",
        "imageformats/libqjpeg.so", "imageformats/libqsvg.so", "imageformats/libqtiff.so",
        "generic/libqevdevmouseplugin.so", "platforminputcontexts/libcomposeplatforminputcontextplugin.so")]
    toc.append(("onnxruntime/capi/libonnxruntime_providers_shared.so", "/src/o.so", "BINARY"))
    kept, dropped = dist_trim.drop_unused_qt_plugins(toc)
    assert sorted(Path(d).name for d, _, _ in dropped) == [
        "libqeglfs.so", "libqevdevmouseplugin.so", "libqgtk3.so", "libqtiff.so", "libqvnc.so"]
    assert {Path(d).name for d, _, _ in kept} >= {"libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqjpeg.so",
                                                   "libqsvg.so", "libcomposeplatforminputcontextplugin.so",
                                                   "libqxdgdesktopportal.so", "libonnxruntime_providers_shared.so"}


def test_only_libraries_that_nothing_kept_needs_are_pruned():
    needs = {"/src/gtk3.so": ["libcairo.so.2", "libX11.so.6", "libQt6Gui.so.6"],
             "/src/xcb.so": ["libX11.so.6", "libQt6Gui.so.6", "libQt6XcbQpa.so.6"],
             "/src/vnc.so": ["libQt6Network.so.6", "libgssapi_krb5.so.2"],
             "/src/QtGui.abi3.so": ["libQt6Gui.so.6"]}
    dropped = [(P + "platformthemes/libqgtk3.so", "/src/gtk3.so", "BINARY"),
               (P + "platforms/libqvnc.so", "/src/vnc.so", "BINARY")]
    kept = [(P + "platforms/libqxcb.so", "/src/xcb.so", "BINARY"),
            ("PySide6/QtGui.abi3.so", "/src/QtGui.abi3.so", "EXTENSION"),
            ("libcairo.so.2", "/src/libcairo.so.2", "BINARY"),
            ("libX11.so.6", "/src/libX11.so.6", "BINARY"),
            ("libgssapi_krb5.so.2", "/src/libgssapi_krb5.so.2", "BINARY"),
            ("PySide6/Qt/lib/libQt6Network.so.6", "/src/libQt6Network.so.6", "BINARY"),
            ("PySide6/Qt/lib/libQt6Gui.so.6", "/src/libQt6Gui.so.6", "BINARY"),
            ("libuuid.so.1", "/src/libuuid.so.1", "BINARY"),  # loaded by ctypes: nothing names it
            ("onnxruntime/capi/libcairo.so.2", "/src/other-cairo.so", "BINARY")]  # not a dependency folder
    left, pruned = dist_trim.prune_orphans(kept, dropped, lambda src: needs.get(src, []))
    assert sorted(d for d, _, _ in pruned) == ["PySide6/Qt/lib/libQt6Network.so.6", "libcairo.so.2",
                                               "libgssapi_krb5.so.2"]
    assert [e for e in kept if e not in pruned] == left
    assert "libX11.so.6" in {d for d, _, _ in left} and "libuuid.so.1" in {d for d, _, _ in left}


def test_cups_and_what_only_it_needs_are_left_to_the_system_but_the_print_plugin_stays():
    needs = {"/src/cups-plugin.so": ["libcups.so.2", "libgnutls.so.30", "libQt6PrintSupport.so.6", "libz.so.1"],
             "/src/libcups.so.2": ["libgnutls.so.30", "libz.so.1"],
             "/src/QtPrintSupport.abi3.so": ["libQt6PrintSupport.so.6"],
             "/src/zlib.so": ["libz.so.1"]}
    toc = [(P + "printsupport/libcupsprintersupport.so", "/src/cups-plugin.so", "BINARY"),
           ("libcups.so.2", "/src/libcups.so.2", "BINARY"),
           ("libgnutls.so.30", "/src/libgnutls.so.30", "BINARY"),
           ("libz.so.1", "/src/libz.so.1", "BINARY"),
           ("PySide6/Qt/lib/libQt6PrintSupport.so.6", "/src/libQt6PrintSupport.so.6", "BINARY"),
           ("PySide6/QtPrintSupport.abi3.so", "/src/QtPrintSupport.abi3.so", "EXTENSION"),
           ("python3.11/lib-dynload/zlib.so", "/src/zlib.so", "EXTENSION")]
    kept, left_out = dist_trim.leave_cups_to_the_system(toc, lambda src: needs.get(src, []))
    assert sorted(d for d, _, _ in left_out) == ["libcups.so.2", "libgnutls.so.30"]
    assert kept == [e for e in toc if e not in left_out]  # the plugin, QtPrintSupport and zlib stay, in order
    assert dist_trim.leave_cups_to_the_system(kept[1:], lambda src: needs.get(src, [])) == (kept[1:], [])


def test_a_wheels_copy_of_a_library_the_installer_holds_becomes_a_link_when_every_symbol_it_gives_is_there():
    needs = {"/src/_imaging.so": ["libxcb-9065bb12.so.1.1.0"], "/src/xcb.so": ["libXau-154567c4.so.6.0.0"],
             "/src/tiff.so": ["libzstd-40ad5e7e.so.1.5.7", "liblzma-de26b416.so.5.8.4"]}
    imports = {"/src/xcb.so": {"XauGetBestAuthByAddr", "malloc@GLIBC_2.2.5"},
               "/src/tiff.so": {"ZSTD_compressStream", "ZSTD_newer_function", "lzma_code@XZ_5.0"}}
    exports = {"/src/wheel-xau.so": {"XauGetBestAuthByAddr", "XauDisposeAuth"}, "/src/libXau.so.6": {"XauGetBestAuthByAddr"},
               "/src/wheel-zstd.so": {"ZSTD_compressStream", "ZSTD_newer_function"}, "/src/libzstd.so.1": {"ZSTD_compressStream"},
               "/src/wheel-lzma.so": {"lzma_code@XZ_5.0"}, "/src/liblzma.so.5": {"lzma_code@XZ_5.0"}}
    toc = [("PIL/_imaging.so", "/src/_imaging.so", "EXTENSION"),
           ("pillow.libs/libxcb-9065bb12.so.1.1.0", "/src/xcb.so", "BINARY"),
           ("pillow.libs/libtiff-20b7e810.so.6.3.0", "/src/tiff.so", "BINARY"),
           ("pillow.libs/libXau-154567c4.so.6.0.0", "/src/wheel-xau.so", "BINARY"),
           ("pillow.libs/libzstd-40ad5e7e.so.1.5.7", "/src/wheel-zstd.so", "BINARY"),
           ("pillow.libs/liblzma-de26b416.so.5.8.4", "/src/wheel-lzma.so", "BINARY"),
           ("libXau.so.6", "/src/libXau.so.6", "BINARY"), ("libzstd.so.1", "/src/libzstd.so.1", "BINARY"),
           ("liblzma.so.5", "/src/liblzma.so.5", "BINARY")]
    out, notes = dist_trim.link_wheel_duplicates(toc, lambda s: needs.get(s, []), lambda s: imports.get(s, set()),
                                                 lambda s: exports.get(s, set()))
    by_dest = {d: (s, t) for d, s, t in out}
    assert by_dest["pillow.libs/libXau-154567c4.so.6.0.0"] == ("../libXau.so.6", "SYMLINK")  # XauDisposeAuth unused
    assert by_dest["pillow.libs/liblzma-de26b416.so.5.8.4"] == ("../liblzma.so.5", "SYMLINK")
    # libtiff takes a function the installer's older libzstd lacks: the wheel's copy stays
    assert by_dest["pillow.libs/libzstd-40ad5e7e.so.1.5.7"] == ("/src/wheel-zstd.so", "BINARY")
    assert len(out) == len(toc) and len(notes) == 2
    # without symbols to compare (no nm), nothing changes
    assert dist_trim.link_wheel_duplicates(toc, lambda s: needs.get(s, []), lambda s: set(), lambda s: set()) == (toc, [])


def test_opengl_integrations_and_the_library_only_they_need_are_left_out():
    toc = [(P + "xcbglintegrations/libqxcb-glx-integration.so", "/src/glx.so", "BINARY"),
           (P + "wayland-graphics-integration-client/libqt-plugin-wayland-egl.so", "/src/egl.so", "BINARY"),
           (P + "platforms/libqwayland.so", "/src/wayland.so", "BINARY"),
           ("PySide6/Qt/lib/libQt6OpenGL.so.6", "/src/libQt6OpenGL.so.6", "BINARY")]
    needs = {"/src/egl.so": ["libQt6OpenGL.so.6", "libQt6WaylandClient.so.6"], "/src/wayland.so": ["libQt6WaylandClient.so.6"]}
    kept, dropped = dist_trim.drop_unused_qt_plugins(toc)
    kept, pruned = dist_trim.prune_orphans(kept, dropped, lambda s: needs.get(s, []))
    assert [d for d, _, _ in kept] == [P + "platforms/libqwayland.so"]
    assert [d for d, _, _ in pruned] == ["PySide6/Qt/lib/libQt6OpenGL.so.6"]


def test_llama_libraries_become_one_file_and_links_and_the_multimodal_one_is_left_out(tmp_path):
    toc = []
    for stem, body in (("libllama", b"llama"), ("libggml", b"ggml"), ("libmtmd", b"mtmd")):
        for name in (f"{stem}.so", f"{stem}.so.0", f"{stem}.so.0.5.0"):
            (tmp_path / name).write_bytes(body)
            toc.append((f"llama_cpp/lib/{name}", str(tmp_path / name), "BINARY"))
    toc.append(("llama_cpp/py.typed", str(tmp_path / "py.typed"), "DATA"))
    out, notes = dist_trim.dedupe_llama_libs(toc)
    by_dest = {d: (s, t) for d, s, t in out}
    assert by_dest["llama_cpp/lib/libllama.so.0"] == (str(tmp_path / "libllama.so.0"), "BINARY")
    assert by_dest["llama_cpp/lib/libllama.so"] == ("libllama.so.0", "SYMLINK")
    assert by_dest["llama_cpp/lib/libllama.so.0.5.0"] == ("libllama.so.0", "SYMLINK")
    assert by_dest["llama_cpp/lib/libggml.so"] == ("libggml.so.0", "SYMLINK")
    assert not any("mtmd" in d for d in by_dest) and "llama_cpp/py.typed" in by_dest
    assert sum(t == "BINARY" for _, t in by_dest.values()) == 2


@pytest.mark.skipif(not (shutil.which("cc") and shutil.which("strip") and shutil.which("readelf")),
                    reason="needs cc, strip and readelf")
def test_strip_removes_the_symbol_table_but_keeps_exported_functions(tmp_path):
    (tmp_path / "x.c").write_text("static int helper(int a) { return a * 2; }\nint exported(int a) { return helper(a); }\n")
    lib = tmp_path / "libx.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-g", "-o", str(lib), str(tmp_path / "x.c")], check=True)
    wheel_lib = tmp_path / "pkg.libs" / "liby.so"
    wheel_lib.parent.mkdir()
    shutil.copy(lib, wheel_lib)
    toc = [("libx.so", str(lib), "BINARY"), ("pkg.libs/liby.so", str(wheel_lib), "BINARY"),
           ("data.txt", str(tmp_path / "x.c"), "DATA")]
    out, saved = dist_trim.strip_binaries(toc, tmp_path / "cache")
    stripped = Path(out[0][1])
    assert stripped != lib and stripped.is_relative_to(tmp_path / "cache") and saved > 0
    assert saved == lib.stat().st_size - stripped.stat().st_size
    assert not dist_trim._has_symbol_table(str(stripped)) and dist_trim._has_symbol_table(str(lib))
    dynsyms = subprocess.run(["readelf", "--dyn-syms", "-W", str(stripped)], capture_output=True, text=True).stdout
    assert " exported" in dynsyms
    assert out[1:] == toc[1:]  # auditwheel's folder and data files untouched


def test_size_table_groups_an_installer_folder(tmp_path):
    folder = tmp_path / "lantern"
    files = {"lantern": 1, "_internal/models/chat.gguf": 3, "_internal/models/emb/model.onnx": 1,
             "_internal/PySide6/Qt/lib/libicudata.so.73": 2, "_internal/libX11.so.6": 1,
             "_internal/numpy.libs/openblas.so": 1, "_internal/somepkg/a.py": 1}
    for rel, mib in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(b"x" * (mib << 20))
    (folder / "_internal/numpy.libs/link.so").symlink_to("openblas.so")
    sizes = dist_sizes.breakdown(folder)
    assert round(sizes["chat model (GGUF)"] / 2**20) == 3
    assert round(sizes["Qt: ICU (Unicode and locale data)"] / 2**20) == 2
    assert round(sizes["NumPy (with OpenBLAS)"] / 2**20) == 1  # the link counts nothing
    assert round(sizes["Python runtime and the app's code"] / 2**20) == 1  # the executable
    assert round(sizes["other Python packages"] / 2**20) == 1
    text = dist_sizes.table([folder])
    assert text.splitlines()[-1].endswith("**10** |")


def test_size_table_of_a_missing_folder_is_one_sentence(tmp_path, capsys):
    assert dist_sizes.main([str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert err.count(".") >= 1 and err.strip().endswith("run `make dist` first.") and "\n" not in err.strip()
