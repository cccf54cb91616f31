/** The CLI's usage text, its usage error and the exit code for an internal failure. */
import { GPU_IDS } from "../core/engine";

export const USAGE = `Usage:
  precision-lens check [--world-size N] [--torchtitan-version V] [--gpu G]
                       [--format text|json|sarif|github] [--quiet] [--max-warnings N]
                       [--fix] [--verbose] [--] PATH...
  precision-lens check [OPTIONS] --stdin-filename NAME -
      Analyse training configs (files, or folders searched recursively for .toml, .yaml, .yml, .json;
      only regular files, each real folder once; - reads one config from standard input, analysed as if
      it were NAME). Exit 0 when no error-level diagnostic, 1 when any (or more warnings than
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
  --verbose                 also list what the folder walk skipped (special files, link cycles)
  --                        everything after it is a path, even if it starts with "-"
`;

/** Exit code when Precision Lens itself failed on some file (an internal-error diagnostic). */
export const EXIT_INTERNAL = 3;


export class UsageError extends Error {}
