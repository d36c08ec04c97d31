use elicit_rmcp::{Elicit, ErrorData, Resolution, Resolve};

async fn airport(_r: Resolve) -> Result<Resolution, ErrorData> {
    Ok(Resolution::value("LHR"))
}

#[derive(serde::Deserialize, Elicit)]
struct Trip {
    #[elicit(message = "Where to?")]
    destination: String,
    #[elicit(resolver = airport, needs = [destnation])]
    airport: String,
}

fn main() {}
