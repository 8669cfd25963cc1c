//! Skills (EX-06): a temp folder of SKILL.md skills; the model sees their
//! names and descriptions in the tool's description and loads one on demand.
//! Offline: a scripted model.

use golem_io::testing::ScriptedModel;
use golem_io::tools::skills::Skills;
use golem_io::Agent;
use golem_io::Role;
use std::fs;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let haiku = dir.path().join("haiku");
    fs::create_dir_all(haiku.join("references"))?;
    fs::write(
        haiku.join("SKILL.md"),
        "---\nname: haiku\ndescription: Use when: the user asks for a poem in 5-7-5 form.\n---\n\n\
         Write three lines of 5, 7 and 5 syllables. See references/examples.md.\n",
    )?;
    fs::write(haiku.join("references/examples.md"), "An old silent pond...\n")?;
    // A malformed skill is reported, not fatal.
    fs::create_dir_all(dir.path().join("broken"))?;
    fs::write(dir.path().join("broken/SKILL.md"), "no frontmatter\n")?;

    let skills = Skills::builder().dir(dir.path()).build()?;
    for problem in skills.problems() {
        println!("skipped: {problem}");
    }
    println!("\nthe tool's description:\n{}\n", skills.description());

    let model = ScriptedModel::new().tool_call("skill", r#"{"name":"haiku"}"#).text("Autumn moonlight...");
    let agent = Agent::builder(model).tool(skills.tool()).build()?;
    let result = agent.run((), "Write me a haiku about autumn.")?;

    let loaded = result.messages.iter().find(|m| m.role == Role::Tool).ok_or("no tool result")?;
    println!("skill returned:\n{}\n", loaded.content);
    println!("output: {}", result.output);
    Ok(())
}
