"""What a completion knows of the namespace: the variables the prefix names, described statically."""

import pandas as pd

from jupyter_agent.features.completion import describe_for_completion, referenced_variables
from jupyter_agent.tools.data_policy import DataPolicy


class Model:
    calls = 0

    def __init__(self):
        self.encoder = [1, 2]
        self.learning_rate = 0.1

    def fit(self, data):
        return self

    @property
    def expensive(self):
        Model.calls += 1  # user code: describing must never run it
        return 1


def namespace():
    return {
        "df": pd.DataFrame({"revenue_q3": [1.5], "region": ["north"]}),
        "model": Model(),
        "rate": 0.25,
        "secret_frame": pd.DataFrame({"ssn": [1]}),
        "pd": pd,
    }


def test_the_trailing_name_comes_first_with_its_columns_and_dtypes():
    facts = referenced_variables("x = rate * df.", namespace(), DataPolicy())
    assert [fact.path for fact in facts] == ["df", "rate"]
    assert facts[0].text == "df: DataFrame, 1 rows × 2 columns\n  columns: revenue_q3 (float64), region (str)"
    assert facts[0].members == ("revenue_q3", "region")


def test_names_the_prefix_does_not_use_and_modules_stay_out():
    facts = referenced_variables("import pandas as pd\nout = pd.concat([df", namespace(), DataPolicy())
    assert [fact.path for fact in facts] == ["df"]  # not pd (a module), not secret_frame (not named)


def test_an_attribute_path_resolves_statically_to_its_longest_known_part():
    ns = namespace()
    facts = referenced_variables("model.encoder.app", ns, DataPolicy())
    assert facts[0].path == "model.encoder" and facts[0].text == "model.encoder: list, len 2"
    facts = referenced_variables("model.", ns, DataPolicy())
    assert facts[0].text == (
        f"model: {__name__}.Model\n  attributes: encoder (list), learning_rate (float)\n"
        "  methods and class attributes: calls, expensive, fit"
    )
    assert facts[0].members == ("encoder", "learning_rate", "calls", "expensive", "fit")
    assert Model.calls == 0  # the property was listed, never read


def test_values_follow_the_data_policy():
    ns = namespace()
    assert describe_for_completion("rate", ns["rate"], DataPolicy("sample")) == "rate: float = 0.25"
    assert describe_for_completion("rate", ns["rate"], DataPolicy("schema")) == "rate: float"
    keys = {"alpha": 1, "beta": 2}
    assert describe_for_completion("keys", keys, DataPolicy("sample")) == "keys: dict, len 2\n  keys: 'alpha', 'beta'"
    assert describe_for_completion("keys", keys, DataPolicy("schema")) == "keys: dict, len 2"


def test_two_hundred_variables_give_at_most_the_nearest_few():
    ns = {f"frame_{i}": pd.DataFrame({f"col_{i}": [i]}) for i in range(200)}
    prefix = " + ".join(f"frame_{i}" for i in range(200))
    facts = referenced_variables(prefix, ns, DataPolicy())
    assert len(facts) == 8 and facts[0].path == "frame_199"
