-- Pandoc filter for the man page: a table becomes a definition list (first cell the term, the
-- other cells its paragraphs). groff 1.22.4's tbl cannot fit the docs' wide tables into 80
-- columns without warnings ("cannot adjust line", "table text block will not fit on one page").
function Table(tbl)
  local simple = pandoc.utils.to_simple_table(tbl)
  local items = {}
  for _, row in ipairs(simple.rows) do
    local definition = {}
    for i = 2, #row do
      for _, block in ipairs(row[i]) do table.insert(definition, block) end
    end
    table.insert(items, {pandoc.utils.blocks_to_inlines(row[1]), {definition}})
  end
  local headers = {}
  for _, cell in ipairs(simple.headers) do
    local text = pandoc.utils.stringify(cell)
    if text ~= "" then table.insert(headers, text) end
  end
  local blocks = {}
  if #headers > 0 then table.insert(blocks, pandoc.Para({pandoc.Emph(table.concat(headers, " | "))})) end
  table.insert(blocks, pandoc.DefinitionList(items))
  return blocks
end
