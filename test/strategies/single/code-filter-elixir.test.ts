/**
 * Code filter, Elixir: raw source in, exact text out. `def`/`defp`/`defmacro` bodies between
 * `do` and `end` are elided; modules, attributes, docs, DSL blocks, one-line forms and
 * template-rendering functions stay; `do:`, `:end`, `x.end`, strings, heredocs, sigils, `?#`
 * and interpolation never move a block boundary.
 */
import { describe, expect, it } from 'vitest';
import { codeFilter } from '../../../src/strategies/single/code-filter/index.js';
import { CFG, fileRead, render } from './code-filter-helpers.js';

interface Row {
  name: string;
  input: string[];
  expected: string[] | null;
  preserve?: boolean;
}

const rows: Row[] = [
  {
    name: 'bodies go; docs, specs, attributes, one-line clauses and bodiless heads stay',
    input: [
      'defmodule Shop.Cart do',
      '  @moduledoc """',
      '  A cart. Not code: def x do end',
      '  """',
      '  @max_items 50',
      '',
      '  @doc "Adds an item."',
      '  @spec add(t(), Item.t(), pos_integer()) :: t()',
      '  def add(cart, item, qty \\\\ 1)',
      '  def add(%__MODULE__{} = cart, item, qty) when qty > 0 do',
      '    items = [item | cart.items]',
      '    total = Enum.reduce(items, 0, fn i, acc -> acc + i.price end)',
      '    %{cart | items: items, total: total}',
      '  end',
      '',
      '  defp count(nil), do: 0',
      '  defp count(cart), do: length(cart.items)',
      'end',
    ],
    expected: [
      'defmodule Shop.Cart do',
      '  @moduledoc """',
      '  A cart. Not code: def x do end',
      '  """',
      '  @max_items 50',
      '',
      '  @doc "Adds an item."',
      '  @spec add(t(), Item.t(), pos_integer()) :: t()',
      '  def add(cart, item, qty \\\\ 1)',
      '  def add(%__MODULE__{} = cart, item, qty) when qty > 0 do',
      '    # … 3 lines elided (11–13)',
      '  end',
      '',
      '  defp count(nil), do: 0',
      '  defp count(cart), do: length(cart.items)',
      'end',
    ],
  },
  {
    name: 'keywords in strings, heredocs, sigils, atoms, char literals and interpolation are not blocks',
    input: [
      'defmodule M do',
      '  def parse(text) do',
      '    re = ~r/do|end/i',
      '    s = ~s(fn end do)',
      '    c = ?#',
      '    a = :end',
      '    m = text.end',
      '    k = [do: 1, end: 2]',
      '    i = "#{if text do "end" else "do" end} }"',
      '    """',
      '    end',
      '    """',
      '  end',
      '  def other(x) do',
      '    y = x + 1',
      '    z = y * 2',
      '    z - 3',
      '  end',
      'end',
    ],
    expected: [
      'defmodule M do',
      '  def parse(text) do',
      '    # … 10 lines elided (3–12)',
      '  end',
      '  def other(x) do',
      '    # … 3 lines elided (15–17)',
      '  end',
      'end',
    ],
  },
  {
    name: 'multi-line heads keep every line; raise with a message survives',
    input: [
      'defmodule M do',
      '  def charge(',
      '        %Order{} = order,',
      '        opts',
      '      )',
      '      when is_list(opts) do',
      '    amount = Order.total(order)',
      '    currency = Keyword.get(opts, :currency, "EUR")',
      '    if amount <= 0, do: raise(ArgumentError, "amount must be positive, got #{amount}")',
      '    gateway = Keyword.fetch!(opts, :gateway)',
      '    result = gateway.charge(amount, currency)',
      '    log(result)',
      '    result',
      '  end',
      'end',
    ],
    expected: [
      'defmodule M do',
      '  def charge(',
      '        %Order{} = order,',
      '        opts',
      '      )',
      '      when is_list(opts) do',
      '    amount = Order.total(order)',
      '    currency = Keyword.get(opts, :currency, "EUR")',
      '    if amount <= 0, do: raise(ArgumentError, "amount must be positive, got #{amount}")',
      '    # … 4 lines elided (10–13)',
      '  end',
      'end',
    ],
  },
  {
    name: 'a function rendering a ~H template is a component: kept whole; DSL blocks stay',
    input: [
      'defmodule Web.Page do',
      '  use Phoenix.LiveView',
      '  schema "pages" do',
      '    field :title, :string',
      '    field :body, :string',
      '    timestamps()',
      '  end',
      '  def render(assigns) do',
      '    ~H"""',
      '    <div :if={@open}>{@title} end do</div>',
      '    """',
      '  end',
      '  def handle_event("save", params, socket) do',
      '    changeset = Page.changeset(params)',
      '    {:ok, page} = Repo.insert(changeset)',
      '    {:noreply, assign(socket, page: page)}',
      '  end',
      'end',
    ],
    expected: [
      'defmodule Web.Page do',
      '  use Phoenix.LiveView',
      '  schema "pages" do',
      '    field :title, :string',
      '    field :body, :string',
      '    timestamps()',
      '  end',
      '  def render(assigns) do',
      '    ~H"""',
      '    <div :if={@open}>{@title} end do</div>',
      '    """',
      '  end',
      '  def handle_event("save", params, socket) do',
      '    # … 3 lines elided (14–16)',
      '  end',
      'end',
    ],
  },
  {
    name: 'an unterminated heredoc leaves the file whole',
    input: [
      'defmodule M do',
      '  @doc """',
      '  never closed',
      '  def f do',
      '    a()',
      '    b()',
      '    c()',
      '  end',
      'end',
    ],
    expected: null,
  },
];

describe('code filter: Elixir', () => {
  for (const row of rows) {
    it(row.name, () => {
      const input = fileRead('lib/m.ex', row.input.join('\n'));
      expect(render(input, codeFilter(input, { ...CFG, preserve_docstrings: row.preserve ?? true }))).toBe(
        row.expected === null ? null : row.expected.join('\n'),
      );
    });
  }
});
