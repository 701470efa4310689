"""The demo's closing report: the completed line, the context used and the time of each stage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

import demo_report  # noqa: E402


def test_stage_seconds_are_end_minus_start():
    assert demo_report.stage_seconds("venv 10.0 10.5\nmodel 11 14.25\n") == [("venv", 0.5), ("model", 3.25)]


def test_report_shows_completion_in_its_line_context_and_stages(tmp_path):
    source = tmp_path / "a.py"
    source.write_text("x = 1\nproduct = catalog.\n")
    result = {"text": "find_by_sku(line.sku)", "backend": "embedded", "cache": "miss", "context_tokens": 42,
              "latency_ms": {"context": 1.5, "backend": 900.0, "total": 3001.5},
              "snippets": [{"path": "inventory/catalog.py", "symbol": "Catalog.find_by_sku", "kind": "method"}]}
    text = demo_report.report(result, [("model", 0.25)], f"{source}:2:19")
    assert "product = catalog.find_by_sku(line.sku)" in text
    assert "inventory/catalog.py  Catalog.find_by_sku" in text and "1 cross-file snippet(s)" in text
    assert "model          0.25 s" in text and "backend" in text and "900.0 ms" in text
    assert "model load         2100.0 ms" in text


def test_empty_completion_is_said_plainly(tmp_path):
    source = tmp_path / "a.py"
    source.write_text("pass\n")
    text = demo_report.report({"text": "", "snippets": []}, [], f"{source}:1:5")
    assert "the model offered nothing here" in text and "the current file only" in text


def test_demo_script_is_valid_bash():
    assert subprocess.run(["bash", "-n", str(ROOT / "scripts" / "demo.sh")]).returncode == 0


def test_report_shows_the_completion_after_one_more_character(tmp_path):
    source = tmp_path / "a.py"
    source.write_text("product = catalog.\n")
    result = {"text": "find_by_sku(sku)", "latency_ms": {"total": 2000.0}, "snippets": [],
              "then": [{"typed": "f", "text": "ind_by_sku(sku)", "cache": "miss", "cache_tier": "miss",
                        "latency_ms": {"context": 2.0, "backend": 310.5, "total": 313.0}}]}
    text = demo_report.report(result, [], f"{source}:1:19")
    assert "after typing 'f'" in text and "313.0 ms" in text
    assert "product = catalog.find_by_sku(sku)" in text.split("after typing")[1]
    assert "310.5 ms" in text


def test_complete_then_type_completes_after_each_character_in_the_same_process(tmp_path):
    from tests.fakes.openai_server import FakeOpenAIServer

    (tmp_path / "main.py").write_text("total = \n")
    with FakeOpenAIServer("add(1, 2)") as fake:
        config = tmp_path / "arbor.json"
        config.write_text(f'{{"backends": [{{"kind": "openai", "url": "{fake.url}", "model": "fake", '
                          f'"modelFamily": "qwen2.5-coder"}}]}}')
        out = subprocess.run([sys.executable, "-m", "lsp_server.cli", "complete", f"{tmp_path / 'main.py'}:1:9",
                              "--workspace", str(tmp_path), "--config", str(config), "--then-type", "ab", "--json"],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    import json

    data = json.loads(out.stdout)
    assert [t["typed"] for t in data["then"]] == ["a", "ab"] and "total" in data["then"][0]["latency_ms"]
    assert len(fake.requests) == 3 and "total = a<" in fake.requests[1]["prompt"]
    assert "total = ab<" in fake.requests[2]["prompt"]
