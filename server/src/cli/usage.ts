/** The CLI's usage text, its usage error and the exit code for an internal failure. */
import { GPU_IDS } from "../core/engine";

export const USAGE = `Usage:
  precision-lens check [--world-size N] [--torchtitan-version V] [--gpu G]
                       [--format text|json|sarif|github] [--quiet] [--max-warnings N]
                       [--fix] [--verbose] [--] PATH...
  precision-lens check [OPTIONS] --stdin-filename NAME -
      Analyse training configs: files, or folders searched recursively for .toml, .yaml, .yml, .json
      and config_registry.py (torchtitan's Python config registries; any .py file named here is read
      as one, FILE.py::FUNCTION checks one of its config functions); only regular files, each real
      folder once; - reads one config from standard input, analysed as if it were NAME. Exit 0 when no error-level diagnostic, 1 when any (or more warnings than
      --max-warnings), 2 on usage errors or unreadable input, 3 when Precision Lens itself failed on a
      file (internal-error).
      --fix rewrites the files in place with every fix that needs no choice (moved and renamed keys,
      clear typos), keeping comments and layout, and lists the fixes that need a choice.
  precision-lens explain [--world-size N] [--torchtitan-version V] [--gpu G] [--format text|html] FILE[::FUNCTION]
      Print the full precision report of one config: layout, mechanism, the dtype of every op of a
      simulated training step, collectives, memory per GPU, assumptions and the era comparison.
      --format html writes it as one self-contained page with charts (> report.html).
      FILE.py::FUNCTION reports one config function of a torchtitan registry (its per-op table and
      what-if matrix); FILE.py alone lists every function's summary.
  precision-lens probe [--world-size N] [--torchtitan-version V] [--device cuda|cpu] [--out probe.py] FILE
      Write a self-contained PyTorch script (PyTorch only, generated from the resolved layout, never from
      the config's text) that reproduces a torchtitan config's layout and mixed-precision mechanism on a
      small model and measures one training step per variant (as configured, mixed precision off, the
      suggested fix): observed dtypes per op, parameter, gradient, collective and optimizer state,
      tokens/s and peak memory, as JSON. --device picks the backend (nccl / gloo) and autocast's device.
  precision-lens probe --compare OBSERVED.json [--format text|json] FILE
      Diff the script's observation against the prediction (for the device and the scaled layout the
      observation names). Exit 1 naming every difference, 0 when clean.
  precision-lens schema [--torchtitan-version V]
      Print the JSON Schema of a torchtitan release (default v0.2.2) for taplo, tombi or any validator.
  precision-lens --help | --version

Options:
  --world-size N            number of GPUs (overrides in-file directives, settings and inference)
  --torchtitan-version V    auto (default), v0.1.0, v0.2.0, v0.2.1, v0.2.2, v0.2.2+pr2213, main@YYYY-MM-DD;
                            for a Python registry v0.3.0, v0.4.0, main@YYYY-MM-DD (from 2026-02-23)
  --torchtitan-config-source PATH
                            a torchtitan fork's config source (its job_config.py, config_manager.py,
                            custom config module, or root folder); default: found above the config
  --gpu G                   GPU type for throughput and memory estimates: ${GPU_IDS.join(", ")} (default h100-sxm)
  --format F                text (default); json, a stable contract (see README); sarif (SARIF 2.1.0,
                            for code scanning); github (GitHub Actions annotations)
  --quiet                   report errors only
  --max-warnings N          exit 1 when there are more than N warnings
  --stdin-filename NAME     the name of the config read from standard input (-)
  --fix                     apply the fixes that need no choice, in place (atomically; see README)
  --verbose                 print each diagnostic's explanation (what to change) under it, and list
                            what the folder walk skipped (special files, link cycles, links out of
                            the tree, dependency and build folders)
  --                        everything after it is a path, even if it starts with "-"
`;

/** What a usage error prints after its one line. */
export const USAGE_HINT = "Run 'precision-lens --help' for usage.";

/** Exit code when Precision Lens itself failed on some file (an internal-error diagnostic). */
export const EXIT_INTERNAL = 3;


export class UsageError extends Error {}
