"""The oracle's project-dataclass fixture (issue #31): a project's own argument dataclass parsed beside
TrainingArguments, `HfArgumentParser((CustomArgs, TrainingArguments))`. Written for the oracle; the transformers
worker imports this module (our own fixture, never a collected repository's code) and parses each config here
with build_parser()."""
import sys
from dataclasses import dataclass, field

from transformers import HfArgumentParser, TrainingArguments


@dataclass
class CustomArgs:
    data_path: str = field(default="data/train.jsonl", metadata={"help": "training data"})
    max_seq_len: int = 2048
    lora_rank: int = 8
    use_flash_attention: bool = False


def build_parser() -> HfArgumentParser:
    return HfArgumentParser((CustomArgs, TrainingArguments))


def main() -> None:
    parser = build_parser()
    path = sys.argv[1]
    custom, training = parser.parse_json_file(path) if path.endswith(".json") else parser.parse_yaml_file(path)
    print(custom, training.bf16)


if __name__ == "__main__":
    main()
