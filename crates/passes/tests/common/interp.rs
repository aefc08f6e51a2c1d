//! A small interpreter of the structured IR, enough for the legalization tests'
//! compute-style modules: integer, float and boolean arithmetic, composites,
//! Function variables, access chains into globals, calls, selections and loops with
//! their results, block arguments. Running a module before and after legalization
//! and comparing the globals it wrote is the tests' semantic check.

use std::collections::HashMap;

use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Ir, OpId, RegionId, Value};
use spirvkit_ir::types::TypeKind;

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Int(i64),
    Float(f64),
    Bool(bool),
    Composite(Vec<Val>),
    Ptr(Root, Vec<usize>),
    Undef,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Root {
    Cell(usize),
    Global(String),
}

/// How a region was left.
enum Exit {
    Merge(Vec<Val>),
    Return(Option<Val>),
    Kill,
}

pub struct Machine<'a> {
    ir: &'a Ir,
    module: OpId,
    pub globals: HashMap<String, Val>,
    cells: Vec<Val>,
    steps: usize,
}

const MAX_STEPS: usize = 1_000_000;

impl<'a> Machine<'a> {
    pub fn new(ir: &'a Ir, module: OpId) -> Self {
        Machine { ir, module, globals: HashMap::new(), cells: Vec::new(), steps: 0 }
    }

    fn function(&self, name: &str) -> OpId {
        self.module_ops()
            .into_iter()
            .find(|&op| {
                self.ir.op(op).name == "spirv.func"
                    && matches!(self.ir.op(op).attr("sym_name"), Some(Attribute::String(n)) if n == name)
            })
            .unwrap_or_else(|| panic!("no function @{name}"))
    }

    fn module_ops(&self) -> Vec<OpId> {
        let region = self.ir.op(self.module).regions[0];
        self.ir.region(region).blocks.iter().flat_map(|&b| self.ir.block(b).ops.clone()).collect()
    }

    /// Runs the module's first entry point; false when it was killed.
    pub fn run_entry_point(&mut self) -> Result<bool, String> {
        let entry = self
            .module_ops()
            .into_iter()
            .find(|&op| self.ir.op(op).name == "spirv.EntryPoint")
            .ok_or("no entry point")?;
        let Some(Attribute::SymbolRef(path)) = self.ir.op(entry).attr("fn") else {
            return Err("no fn".into());
        };
        let func = self.function(&path[0]);
        Ok(!matches!(self.call(func, Vec::new())?, Exit::Kill))
    }

    fn call(&mut self, func: OpId, args: Vec<Val>) -> Result<Exit, String> {
        let region = self.ir.op(func).regions[0];
        let mut env: HashMap<Value, Val> = HashMap::new();
        let entry = self.ir.region(region).blocks[0];
        for (&p, a) in self.ir.block(entry).arguments.iter().zip(args) {
            env.insert(p, a);
        }
        self.region(region, &mut env)
    }

    fn region(&mut self, region: RegionId, env: &mut HashMap<Value, Val>) -> Result<Exit, String> {
        let mut block: BlockId = self.ir.region(region).blocks[0];
        let mut incoming: Vec<Val> = Vec::new();
        'blocks: loop {
            for (&a, v) in self.ir.block(block).arguments.iter().zip(incoming.drain(..)) {
                env.insert(a, v);
            }
            for &op in &self.ir.block(block).ops {
                self.steps += 1;
                if self.steps > MAX_STEPS {
                    return Err("too many steps".into());
                }
                let o = self.ir.op(op);
                let get = |env: &HashMap<Value, Val>, v: &Value| env.get(v).cloned().unwrap_or(Val::Undef);
                match o.name.as_str() {
                    "spirv.mlir.selection" | "spirv.mlir.loop" => match self.region(o.regions[0], env)? {
                        Exit::Merge(values) => {
                            for (&r, v) in o.results.iter().zip(values) {
                                env.insert(r, v);
                            }
                        }
                        exit => return Ok(exit),
                    },
                    "spirv.mlir.merge" => {
                        return Ok(Exit::Merge(o.operands.iter().map(|v| get(env, v)).collect()))
                    }
                    "spirv.Return" => return Ok(Exit::Return(None)),
                    "spirv.ReturnValue" => return Ok(Exit::Return(Some(get(env, &o.operands[0])))),
                    "spirv.Kill" => return Ok(Exit::Kill),
                    "spirv.Branch" | "spirv.BranchConditional" => {
                        let ranges = self.ir.successor_operand_ranges(op).ok_or("bad branch")?;
                        let taken = if o.name == "spirv.Branch" {
                            0
                        } else {
                            match get(env, &o.operands[0]) {
                                Val::Bool(true) => 0,
                                Val::Bool(false) => 1,
                                other => return Err(format!("branch on {other:?}")),
                            }
                        };
                        incoming = o.operands[ranges[taken].clone()].iter().map(|v| get(env, v)).collect();
                        block = o.successors[taken];
                        continue 'blocks;
                    }
                    "spirv.FunctionCall" => {
                        let Some(Attribute::SymbolRef(path)) = o.attr("callee") else {
                            return Err("callee".into());
                        };
                        let callee = self.function(&path[0]);
                        let args = o.operands.iter().map(|v| get(env, v)).collect();
                        match self.call(callee, args)? {
                            Exit::Return(Some(v)) => {
                                env.insert(o.results[0], v);
                            }
                            Exit::Return(None) => {}
                            Exit::Kill => return Ok(Exit::Kill),
                            Exit::Merge(_) => return Err("merge out of a function".into()),
                        }
                    }
                    _ => {
                        let operands: Vec<Val> = o.operands.iter().map(|v| get(env, v)).collect();
                        let result = self.eval(op, operands)?;
                        if let (Some(&r), Some(v)) = (o.results.first(), result) {
                            env.insert(r, v);
                        }
                    }
                }
            }
            return Err("block without terminator".into());
        }
    }

    fn eval(&mut self, op: OpId, a: Vec<Val>) -> Result<Option<Val>, String> {
        let o = self.ir.op(op);
        let int = |v: &Val| match v {
            Val::Int(i) => Ok(*i),
            other => Err(format!("{}: expected an integer, got {other:?}", o.name.as_str())),
        };
        let float = |v: &Val| match v {
            Val::Float(f) => Ok(*f),
            other => Err(format!("{}: expected a float, got {other:?}", o.name.as_str())),
        };
        let boolean = |v: &Val| match v {
            Val::Bool(b) => Ok(*b),
            other => Err(format!("{}: expected a bool, got {other:?}", o.name.as_str())),
        };
        let wrap = |i: i64| Val::Int(i as i32 as i64);
        Ok(Some(match o.name.as_str() {
            "spirv.Constant" => self.constant(o.attr("value"), self.ir.value_type(o.results[0]))?,
            "spirv.Undef" => Val::Undef,
            "spirv.Variable" => {
                self.cells.push(a.first().cloned().unwrap_or(Val::Undef));
                Val::Ptr(Root::Cell(self.cells.len() - 1), Vec::new())
            }
            "spirv.mlir.addressof" => {
                let Some(Attribute::SymbolRef(path)) = o.attr("variable") else {
                    return Err("addressof".into());
                };
                Val::Ptr(Root::Global(path[0].clone()), Vec::new())
            }
            "spirv.AccessChain" => {
                let Val::Ptr(root, mut path) = a[0].clone() else { return Err("chain base".into()) };
                for i in &a[1..] {
                    path.push(usize::try_from(int(i)?).map_err(|_| "negative index")?);
                }
                Val::Ptr(root, path)
            }
            "spirv.Load" => {
                let Val::Ptr(root, path) = &a[0] else { return Err("load of a non-pointer".into()) };
                let mut v = self.slot(root).clone();
                for &i in path {
                    v = match v {
                        Val::Composite(items) => items.get(i).cloned().unwrap_or(Val::Undef),
                        _ => Val::Undef,
                    };
                }
                v
            }
            "spirv.Store" => {
                let Val::Ptr(root, path) = a[0].clone() else { return Err("store to a non-pointer".into()) };
                let mut slot = self.slot(&root);
                for &i in &path {
                    if !matches!(slot, Val::Composite(_)) {
                        *slot = Val::Composite(Vec::new());
                    }
                    let Val::Composite(items) = slot else { unreachable!() };
                    if items.len() <= i {
                        items.resize(i + 1, Val::Undef);
                    }
                    slot = &mut items[i];
                }
                *slot = a[1].clone();
                return Ok(None);
            }
            "spirv.IAdd" => wrap(int(&a[0])?.wrapping_add(int(&a[1])?)),
            "spirv.ISub" => wrap(int(&a[0])?.wrapping_sub(int(&a[1])?)),
            "spirv.IMul" => wrap(int(&a[0])?.wrapping_mul(int(&a[1])?)),
            "spirv.SLessThan" => Val::Bool(int(&a[0])? < int(&a[1])?),
            "spirv.SGreaterThan" => Val::Bool(int(&a[0])? > int(&a[1])?),
            "spirv.IEqual" => Val::Bool(int(&a[0])? == int(&a[1])?),
            "spirv.INotEqual" => Val::Bool(int(&a[0])? != int(&a[1])?),
            "spirv.LogicalNot" => Val::Bool(!boolean(&a[0])?),
            "spirv.LogicalAnd" => Val::Bool(boolean(&a[0])? && boolean(&a[1])?),
            "spirv.LogicalOr" => Val::Bool(boolean(&a[0])? || boolean(&a[1])?),
            "spirv.FAdd" => Val::Float(float(&a[0])? + float(&a[1])?),
            "spirv.FSub" => Val::Float(float(&a[0])? - float(&a[1])?),
            "spirv.FMul" => Val::Float(float(&a[0])? * float(&a[1])?),
            "spirv.FOrdLessThan" => Val::Bool(float(&a[0])? < float(&a[1])?),
            "spirv.FOrdGreaterThan" => Val::Bool(float(&a[0])? > float(&a[1])?),
            "spirv.ConvertSToF" => Val::Float(int(&a[0])? as f64),
            "spirv.Select" => {
                if boolean(&a[0])? {
                    a[1].clone()
                } else {
                    a[2].clone()
                }
            }
            "spirv.CompositeConstruct" => Val::Composite(a),
            "spirv.CompositeExtract" => {
                let Some(Attribute::Array(indices)) = o.attr("indices") else { return Err("indices".into()) };
                let mut v = a[0].clone();
                for i in indices {
                    let Attribute::Integer { value, .. } = i else { return Err("index".into()) };
                    v = match v {
                        Val::Composite(items) => items.get(*value as usize).cloned().unwrap_or(Val::Undef),
                        _ => Val::Undef,
                    };
                }
                v
            }
            other => return Err(format!("the interpreter does not know {other}")),
        }))
    }

    fn slot(&mut self, root: &Root) -> &mut Val {
        match root {
            Root::Cell(i) => &mut self.cells[*i],
            Root::Global(name) => self.globals.entry(name.clone()).or_insert(Val::Undef),
        }
    }

    fn constant(&self, value: Option<&Attribute>, ty: spirvkit_ir::types::Type) -> Result<Val, String> {
        Ok(match value {
            Some(Attribute::Integer { value, ty }) => match self.ir.types.kind(*ty) {
                TypeKind::Integer { width: 1, .. } => Val::Bool(*value != 0),
                _ => Val::Int(*value as i64),
            },
            Some(Attribute::Float { value, .. }) => Val::Float(*value),
            Some(Attribute::Bool(b)) => Val::Bool(*b),
            Some(Attribute::Dense { elements, .. }) => {
                let count = match self.ir.types.kind(ty) {
                    TypeKind::Vector { shape, .. } => shape.iter().product::<u64>() as usize,
                    _ => elements.len(),
                };
                let items: Result<Vec<Val>, String> =
                    elements.iter().map(|e| self.constant(Some(e), ty)).collect();
                let items = items?;
                if items.len() == 1 {
                    Val::Composite(vec![items[0].clone(); count])
                } else {
                    Val::Composite(items)
                }
            }
            other => return Err(format!("constant {other:?}")),
        })
    }
}
